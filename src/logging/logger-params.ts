import { IncomingMessage, ServerResponse } from 'node:http';
import { Request, Response } from 'express';
import { Params } from 'nestjs-pino';
import { DestinationStream, Level } from 'pino';
import { Options } from 'pino-http';
import { assignRequestId } from '../http/request-id.middleware';
import { LogFormat, LogLevel } from '../config/operations.env';
import { secretMask } from './secret-mask';

export const UNMATCHED_ROUTE = '<unmatched>';

// Probes and scrapes arrive every few seconds from every replica; their lines would drown the rest.
const UNLOGGED_PATHS = /^\/(health\/(live|ready)|metrics)\/?(\?|$)/;

/**
 * The route template that served a request (`/api/data/clients/:id`), never the raw path: ids
 * would make unbounded metric labels, and the raw path can hold anything a caller sent.
 */
export function routeOf(req: IncomingMessage): string {
  const { route, baseUrl } = req as Partial<Request>;
  // Nest mounts route-scoped middleware on a wildcard (`{/*splat}`); the API has no wildcard
  // route, so a wildcard here means no route matched (a 404).
  if (typeof route?.path !== 'string' || route.path.includes('*')) return UNMATCHED_ROUTE;
  return `${baseUrl ?? ''}${route.path}`;
}

// One line per request: requestId (bound below), method, route, status and duration. The
// query string is left out: a caller may have put an API key there (docs/api.md, Authentication).
// The caller's key is named by its id (`env-1`, or the api_keys row id), never by the key.
function requestLine(req: IncomingMessage, res: ServerResponse, responseTime: number) {
  return {
    method: req.method,
    route: routeOf(req),
    path: (req as Partial<Request>).originalUrl?.split('?')[0] ?? req.url?.split('?')[0],
    status: res.statusCode,
    durationMs: responseTime,
    key: (res as Partial<Response>).locals?.apiKeyId ?? null,
  };
}

export function loggerParams(
  { level, format, apiKeys }: { level: LogLevel; format: LogFormat; apiKeys: readonly string[] },
  destination: DestinationStream,
): Params {
  const mask = secretMask(apiKeys);
  const options: Options = {
    level,
    // Every argument of every log call is masked, so no line can carry a key.
    hooks: {
      logMethod(args, method) {
        method.apply(this, args.map((arg) => mask(arg)) as Parameters<typeof method>);
      },
    },
    genReqId: (req, res) => assignRequestId(req, res),
    // The request's logger is the root's child bound to its requestId alone, which the request
    // line and every line an error handler writes carry. It is bound as pino-http's request
    // attribute, printed by its serializer as the id. (pino-http's `quietReqLogger` would bind
    // the same field through a second child logger per request, whose parent — a per-request
    // object turned prototype — gets a hidden class of its own; every finished request then
    // outlived young-generation collections until a full one.) No request object is ever logged.
    customAttributeKeys: { req: 'requestId' },
    wrapSerializers: false,
    serializers: { requestId: (req: IncomingMessage) => req.id },
    // The response is the request's logger too, without the response object.
    quietResLogger: false,
    autoLogging: { ignore: (req) => UNLOGGED_PATHS.test(req.url ?? '') },
    customLogLevel: (_req, res, error): Level =>
      error || res.statusCode >= 500 ? 'error' : 'info',
    customSuccessMessage: () => 'request completed',
    customErrorMessage: () => 'request failed',
    customSuccessObject: (req, res, value: { responseTime: number }) =>
      requestLine(req, res, value.responseTime),
    customErrorObject: (req, res, _error, value: { responseTime: number }) =>
      requestLine(req, res, value.responseTime),
    // Nothing above logs headers; this is the net if a future line does.
    redact: {
      paths: ['req.headers.authorization', 'req.headers.cookie', 'headers.authorization'],
      censor: '[Redacted]',
    },
    ...(format === 'pretty' && {
      transport: { target: 'pino-pretty', options: { singleLine: true } },
    }),
  };
  return { pinoHttp: format === 'pretty' ? options : [options, destination] };
}
