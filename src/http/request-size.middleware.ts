import { PayloadTooLargeException } from '@nestjs/common';
import { NextFunction, Request, Response } from 'express';

// The API reads no body (APP_OPTIONS); anything larger than this is refused before it is sent.
export const MAX_REQUEST_BODY_BYTES = 1024;

/** 413 for a declared body over the limit, or a chunked one of unknown length. */
export function requestSizeMiddleware(req: Request, _res: Response, next: NextFunction): void {
  const length = Number(req.headers['content-length'] ?? 0);
  if (req.headers['transfer-encoding'] !== undefined || length > MAX_REQUEST_BODY_BYTES) {
    req.once('error', () => undefined);
    next(
      new PayloadTooLargeException(`Request bodies are limited to ${MAX_REQUEST_BODY_BYTES} bytes`),
    );
    return;
  }
  next();
}
