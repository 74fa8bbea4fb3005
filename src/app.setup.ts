import { NestApplicationOptions } from '@nestjs/common';
import { NestExpressApplication } from '@nestjs/platform-express';
import { Server } from 'node:http';
import { Express, NextFunction, Request, Response } from 'express';
import { Logger } from 'nestjs-pino';
import { parseQuery } from './query/parse-query';
import { useOriginForm } from './requests/origin-form';
import { assignRequestId } from './logging/request-id';
import { logRequest, routeOf, UNMATCHED_ROUTE } from './logging/access-log';
import { closeIfBodyMayGoUnread } from './requests/request-size';
import { routeUndecodableSegments } from './requests/undecodable-path';
import { HttpEnv } from './config/http.env';
import { ShutdownState } from './health/shutdown-state';
import { isDataPath, useIfNoneMatchFreshness } from './responses/caching';
import { COMPRESSIONS_AT_ONCE, compressionMiddleware } from './responses/compression';
import { HttpMetrics } from './metrics/http-metrics';
import { InFlightRequests } from './limits/in-flight-requests';
import { FairSlots } from './limits/fair-slots';
import { buildOpenApiDocument } from './openapi/openapi';
import { DocsFiles } from './docs/docs-files';
import { responseHeaders } from './responses/response-headers';
import { answerClientErrors, refuseWithoutHost } from './requests/client-error';
import { withServerTiming } from './timing/server-timing';

// The API reads nothing from request bodies, so none is parsed (a key in a body never counts).
// Logs written while the app is built wait for the structured logger.
export const APP_OPTIONS: NestApplicationOptions = { bodyParser: false, bufferLogs: true };

/** Everything main.ts does to the app besides listening, so the e2e tests run the same wiring. */
export function configureApp(app: NestExpressApplication): void {
  const http = app.get(HttpEnv);
  app.useLogger(app.get(Logger));
  app.disable('x-powered-by');
  app.set('query parser', parseQuery);
  app.set('trust proxy', http.TRUST_PROXY);
  // Conditional requests and compression: a weak ETag over every body sent, 304 when it matches.
  app.set('etag', 'weak');
  useIfNoneMatchFreshness((app.getHttpAdapter().getInstance() as Express).request);
  const metrics = app.get(HttpMetrics);
  const shutdown = app.get(ShutdownState);
  const inFlight = app.get(InFlightRequests);
  const isTimed = http.SERVER_TIMING;
  const compressions = new FairSlots(COMPRESSIONS_AT_ONCE, Infinity);
  const compressBodies = compressionMiddleware((res) =>
    compressions.acquireInTurn(inFlight.keyOf(res) ?? ''),
  );
  // What every request goes through before routing, none of which answers it, as one
  // middleware: each Express middleware is a step of the router, with its path match.
  app.use((req: Request, res: Response, next: NextFunction) => {
    const startedAt = performance.now();
    assignRequestId(req, res);
    shutdown.requestStarted(res);
    // What follows a response, answered or not, once, read by one clock.
    let isEnded = false;
    const ended = () => {
      if (isEnded) return;
      isEnded = true;
      shutdown.requestEnded();
      inFlight.release(res);
      const route = routeOf(req);
      const durationMs = performance.now() - startedAt;
      const status = res.writableFinished ? res.statusCode : 'aborted';
      metrics.observe(req.method, route, status, durationMs);
      logRequest(req, res, route, durationMs);
    };
    res.on('close', ended);
    // A pipelined request whose connection closes before its turn: its response never closes.
    req.on('close', () => {
      if (req.socket.destroyed) ended();
    });
    if (refuseWithoutHost(req, res)) return;
    inFlight.admit(req, res, () => {
      closeIfBodyMayGoUnread(req, res);
      routeUndecodableSegments(req);
      const route = () => responseHeaders(req, res, () => compressBodies(req, res, next));
      if (isTimed && isDataPath(req.url)) withServerTiming(res, startedAt, route);
      else route();
    });
  });
  const origins = http.CORS_ORIGINS;
  // CORS is off unless CORS_ORIGINS lists the browser origins allowed to call the API.
  if (origins) {
    app.enableCors({
      origin: origins,
      methods: ['GET', 'HEAD'],
      allowedHeaders: ['Authorization', 'X-Request-Id'],
      exposedHeaders: [
        'X-Request-Id',
        'RateLimit-Limit',
        'RateLimit-Remaining',
        'RateLimit-Reset',
        'Retry-After',
      ],
      maxAge: 600,
    });
  }
  (app.getHttpServer() as Server).prependListener('request', useOriginForm);
  setServerTimeouts(app.getHttpServer() as Server);
  // Refused before any route or method was read.
  answerClientErrors(app.getHttpServer() as Server, (status) =>
    metrics.observe('OTHER', UNMATCHED_ROUTE, status, 0),
  );
  app.get(DocsFiles).prepare(buildOpenApiDocument(app));
}

/**
 * HTTP timeouts, set on purpose: keep-alive outlives the 60 s idle timeout of common
 * load balancers, so they close idle connections first and never reuse one being closed here;
 * a client gets 10 s to send its headers and 30 s for the whole request (trickled headers,
 * slowloris), after which it is answered 408 and closed. Node looks for such requests every
 * 30 s unless told (read when the server starts listening): every second here, so the 408 comes
 * within a second of its deadline, not up to 30 s after it. Responses themselves are not limited.
 */
function setServerTimeouts(server: Server): void {
  server.keepAliveTimeout = 65_000;
  server.headersTimeout = 10_000;
  server.requestTimeout = 30_000;
  (server as Server & { connectionsCheckingInterval: number }).connectionsCheckingInterval = 1_000;
}
