import { Request, Response } from 'express';

// The API reads no body (APP_OPTIONS); a read that carries more than this gets a 413.
export const MAX_REQUEST_BODY_BYTES = 1024;

/** A declared body over the limit, or a chunked one of unknown length. */
export function hasOversizedBody(req: Pick<Request, 'headers'>): boolean {
  const length = Number(req.headers['content-length'] ?? 0);
  return req.headers['transfer-encoding'] !== undefined || length > MAX_REQUEST_BODY_BYTES;
}

/**
 * A request with an oversized body is answered (401, 405, 413 — see ReadRequestGuard) without
 * its body ever being read: its connection closes after the answer.
 */
export function closeAfterOversizedBody(req: Request, res: Response): void {
  if (hasOversizedBody(req)) {
    res.setHeader('Connection', 'close');
    req.once('error', () => undefined);
  }
}
