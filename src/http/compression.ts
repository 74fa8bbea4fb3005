import zlib from 'node:zlib';
import compression from 'compression';
import { NextFunction, Request, RequestHandler, Response } from 'express';

/** Bodies of this many bytes or fewer are sent as they are: compressing them gains nothing. */
export const COMPRESSION_MIN_EXCLUSIVE_BYTES = 1024;

/** Brotli at quality 4 (`compression`'s default, stated for the bodies compressed ahead too). */
export const BROTLI_OPTIONS = { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 4 } };

// `compression` compresses a body whose length is at least its threshold.
const compressBodies: RequestHandler = compression({
  threshold: COMPRESSION_MIN_EXCLUSIVE_BYTES + 1,
  brotli: BROTLI_OPTIONS,
});

/**
 * Compression for callers that accept an encoding. `compression` wraps every response's
 * writes to decide at its headers; a caller without Accept-Encoding is sent the body as it is
 * anyway, so its responses skip that work. They still say `Vary: Accept-Encoding`: every
 * response does (responseHeaders).
 */
export function compressionMiddleware(req: Request, res: Response, next: NextFunction): void {
  if (req.headers['accept-encoding'] === undefined) next();
  else compressBodies(req, res, next);
}
