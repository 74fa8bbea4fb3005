import { randomUUID } from 'node:crypto';
import { IncomingMessage, ServerResponse } from 'node:http';
import { Response } from 'express';

export const REQUEST_ID_HEADER = 'X-Request-Id';

// An incoming id is reused only if it is short and plain, so it is safe in logs and headers.
const ACCEPTABLE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const REQUEST_ID = Symbol('requestId');

type WithRequestId = ServerResponse & { [REQUEST_ID]?: string; locals?: Record<string, unknown> };

/**
 * The request's id (docs/api.md, Errors): the caller's X-Request-Id or a new UUID, echoed back. Decided
 * once per request, whichever asks first (the app's first middleware or the request logger), so the
 * header, the problem body and the log line carry the same id.
 */
export function assignRequestId(req: IncomingMessage, res: ServerResponse): string {
  const target = res as WithRequestId;
  if (target[REQUEST_ID]) return target[REQUEST_ID];
  const incoming = req.headers[REQUEST_ID_HEADER.toLowerCase()];
  const id =
    typeof incoming === 'string' && ACCEPTABLE_REQUEST_ID.test(incoming) ? incoming : randomUUID();
  target[REQUEST_ID] = id;
  if (target.locals) target.locals.requestId = id;
  res.setHeader(REQUEST_ID_HEADER, id);
  return id;
}

export function requestIdOf(res: Response): string {
  return (res as WithRequestId)[REQUEST_ID] ?? (res.locals.requestId as string);
}
