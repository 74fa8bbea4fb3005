import { NestApplicationOptions } from '@nestjs/common';
import { NestExpressApplication } from '@nestjs/platform-express';
import { NextFunction, Request, Response } from 'express';
import { Logger } from 'nestjs-pino';
import { parseQuery } from './common/parse-query';
import { requestIdMiddleware } from './common/request-id.middleware';
import { ShutdownState } from './health/shutdown-state';
import { HttpMetrics } from './metrics/http-metrics';
import { setUpOpenApi } from './openapi';

// The API reads nothing from request bodies, so none is parsed (CONTRACT §4: no key in a body).
// Logs written while the app is built wait for the structured logger (issue 4).
export const APP_OPTIONS: NestApplicationOptions = { bodyParser: false, bufferLogs: true };

/** Everything main.ts does to the app besides listening, so the e2e tests run the same wiring. */
export function configureApp(app: NestExpressApplication): void {
  app.useLogger(app.get(Logger));
  app.disable('x-powered-by');
  app.set('query parser', parseQuery);
  app.use(requestIdMiddleware);
  app.use(app.get(HttpMetrics).middleware);
  const shutdown = app.get(ShutdownState);
  // Counts requests in flight; while draining, every response tells keep-alive clients to
  // reconnect (to another replica).
  app.use((_req: Request, res: Response, next: NextFunction) => {
    if (shutdown.isShuttingDown) res.setHeader('Connection', 'close');
    shutdown.inFlight++;
    res.once('close', () => shutdown.inFlight--);
    next();
  });
  setUpOpenApi(app);
}
