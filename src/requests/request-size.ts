import { Request, Response } from 'express';

// The API parses no body (APP_OPTIONS); a read that carries more than this gets a 413.
export const MAX_REQUEST_BODY_BYTES = 1024;

/** A chunked body: no header says how long it is. */
export const hasChunkedBody = (req: Pick<Request, 'headers'>): boolean =>
  req.headers['transfer-encoding'] !== undefined;

/** A body whose Content-Length is over the limit. */
export const hasOversizedBody = (req: Pick<Request, 'headers'>): boolean =>
  Number(req.headers['content-length'] ?? 0) > MAX_REQUEST_BODY_BYTES;

/**
 * Reads a chunked body up to the limit and drops it: true once it has ended within the limit,
 * false as soon as it goes past it (the rest is never read) or the client goes away.
 */
export function chunkedBodyFits(req: Request): Promise<boolean> {
  return new Promise((resolve) => {
    // The client may have gone while the guards before this one waited (a key lookup).
    if (req.destroyed) return resolve(false);
    let length = 0;
    const settle = (fits: boolean) => {
      req.off('data', count).off('end', ended).off('close', closed);
      if (!fits) req.pause();
      resolve(fits);
    };
    const count = (chunk: Buffer) => {
      length += chunk.length;
      if (length > MAX_REQUEST_BODY_BYTES) settle(false);
    };
    const ended = () => settle(true);
    const closed = () => settle(false);
    req.on('data', count).once('end', ended).once('close', closed);
  });
}

/**
 * A request whose body may go unread — declared over the limit, or chunked (read only on an
 * authenticated read, see ReadRequestGuard) — has its connection closed after the answer.
 */
export function closeIfBodyMayGoUnread(req: Request, res: Response): void {
  if (hasOversizedBody(req) || hasChunkedBody(req)) {
    res.setHeader('Connection', 'close');
    req.once('error', () => undefined);
  }
}
