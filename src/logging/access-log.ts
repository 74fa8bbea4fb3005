import { IncomingMessage } from 'node:http';
import { Request, Response } from 'express';
import { PinoLogger } from 'nestjs-pino';
import { loggedPath } from './logged-path';
import { requestIdOf } from './request-id';

export const UNMATCHED_ROUTE = '<unmatched>';

// Probes arrive every few seconds from every replica; their lines would drown the rest.
const UNLOGGED_PATHS = /^\/health\/(live|ready)\/?(\?|$)/i;

/**
 * The route template that served a request (`/api/data/clients/:id`), never the raw path: ids
 * would make unbounded metric labels, and the raw path can hold anything a caller sent.
 */
export function routeOf(req: IncomingMessage): string {
  const { route, baseUrl } = req as Partial<Request>;
  if (typeof route?.path !== 'string') return UNMATCHED_ROUTE;
  return `${baseUrl ?? ''}${route.path}`;
}

/**
 * One line per request, written when its response closes (configureApp), through the
 * application's root logger (so the secret mask and the log level apply): requestId, method,
 * route, path, status, duration and the caller's key by its id (`env-3f9a1c2b`, or the api_keys row
 * id), never the key.
 * The query string is left out: a caller may have put an API key there (docs/api.md,
 * Authentication).
 *
 * Written here rather than by pino-http's middleware, which per request made a child logger,
 * two arrays, three listeners and an async context, and whose Nest mount matched every path
 * against a wildcard: the largest of the API's own costs per request (docs/performance.md).
 * Lines an error handler writes carry the requestId too (ProblemDetailsFilter).
 */
export function logRequest(req: Request, res: Response, route: string, durationMs: number): void {
  if (UNLOGGED_PATHS.test(req.url)) return;
  const line = {
    requestId: requestIdOf(res),
    method: req.method,
    route,
    path: loggedPath(req),
    // A client that left before the response began never got a status: the default 200 would lie.
    status: res.headersSent ? res.statusCode : null,
    durationMs: Math.round(durationMs),
    key: (res.locals.apiKeyId as string | undefined) ?? null,
  };
  if (res.statusCode >= 500) PinoLogger.root.error(line, 'request failed');
  // The client went away before the whole response was sent.
  else if (!res.writableFinished) PinoLogger.root.warn(line, 'request aborted');
  else PinoLogger.root.info(line, 'request completed');
}
