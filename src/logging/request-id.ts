import { randomUUID } from 'node:crypto';
import { IncomingMessage, ServerResponse } from 'node:http';

export const REQUEST_ID_HEADER = 'X-Request-Id';

// An incoming id is reused only if it is short and plain, so it is safe in logs and headers.
const ACCEPTABLE_REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const REQUEST_ID = Symbol('requestId');

type WithRequestId = ServerResponse & { [REQUEST_ID]?: string };

/**
 * Gives the request its id (docs/api.md, Errors), before anything can answer it: the caller's
 * X-Request-Id or a new UUID, echoed back, so that the header, the problem body and the log
 * line carry the same id.
 */
export function assignRequestId(req: IncomingMessage, res: ServerResponse): void {
  const incoming = req.headers[REQUEST_ID_HEADER.toLowerCase()];
  const id =
    typeof incoming === 'string' && ACCEPTABLE_REQUEST_ID.test(incoming) ? incoming : randomUUID();
  (res as WithRequestId)[REQUEST_ID] = id;
  res.setHeader(REQUEST_ID_HEADER, id);
}

export function requestIdOf(res: ServerResponse): string {
  return (res as WithRequestId)[REQUEST_ID] as string;
}
