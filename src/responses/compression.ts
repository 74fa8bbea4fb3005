import zlib from 'node:zlib';
import compression from 'compression';
import { NextFunction, Request, RequestHandler, Response } from 'express';
import Negotiator from 'negotiator';

/** Bodies of this many bytes or fewer are sent as they are: compressing them gains nothing. */
export const COMPRESSION_MIN_EXCLUSIVE_BYTES = 1024;

/** Brotli at quality 4 (`compression`'s default, stated for the bodies compressed ahead too). */
export const BROTLI_OPTIONS = { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 4 } };

export type Encoding = 'br' | 'gzip' | 'deflate';

// `compression` compresses a body whose length is at least its threshold.
const compressBodies: RequestHandler = compression({
  threshold: COMPRESSION_MIN_EXCLUSIVE_BYTES + 1,
  brotli: BROTLI_OPTIONS,
});

/**
 * Compression for callers that accept an encoding. `compression` wraps every response's
 * writes to decide at its headers; a caller without Accept-Encoding is sent the body as it is
 * anyway, so its responses skip that work. They still say `Vary: Accept-Encoding`: every
 * response does (responseHeaders). A response that already has a Content-Encoding (a body
 * compressed ahead, or once for many responses) is left as it is.
 */
export function compressionMiddleware(req: Request, res: Response, next: NextFunction): void {
  if (req.headers['accept-encoding'] === undefined) next();
  else compressBodies(req, res, next);
}

// The choice `compression` makes, with the same candidates and the same preference among
// equally acceptable ones, for the bodies this app compresses itself.
const SUPPORTED = ['br', 'gzip', 'deflate', 'identity'];
export const PREFERRED_ENCODINGS: Encoding[] = ['br', 'gzip'];
const NO_TRANSFORM = /(?:^|,)\s*?no-transform\s*?(?:,|$)/;
// negotiator (the version `compression` uses) takes the preferred ones as a second argument,
// which its type definitions leave out.
const chooseEncoding = Negotiator.prototype.encoding as unknown as (
  this: Negotiator,
  available: readonly string[],
  preferred: readonly string[],
) => string | undefined;

/** The encoding compressionMiddleware would give a body of `length` bytes, if any. */
export function encodingFor(req: Request, res: Response, length: number): Encoding | undefined {
  // The middleware's own filter (a compressible Content-Type), then its other rules in order.
  if (!compression.filter(req, res)) return undefined;
  if (NO_TRANSFORM.test(String(res.getHeader('Cache-Control') ?? ''))) return undefined;
  if (length <= COMPRESSION_MIN_EXCLUSIVE_BYTES || req.method === 'HEAD') return undefined;
  if (!req.headers['accept-encoding']) return undefined;
  const chosen = chooseEncoding.call(new Negotiator(req), SUPPORTED, PREFERRED_ENCODINGS);
  return chosen === undefined || chosen === 'identity' ? undefined : (chosen as Encoding);
}

/** A body compressed whole, with the middleware's settings. */
export function compress(encoding: Encoding, body: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const done = (error: Error | null, result: Buffer) => (error ? reject(error) : resolve(result));
    if (encoding === 'br') zlib.brotliCompress(body, BROTLI_OPTIONS, done);
    else if (encoding === 'gzip') zlib.gzip(body, done);
    else zlib.deflate(body, done);
  });
}

/** A stream that compresses what is written to it, with the middleware's settings. */
export function compressor(encoding: Encoding): zlib.BrotliCompress | zlib.Gzip | zlib.Deflate {
  if (encoding === 'br') return zlib.createBrotliCompress(BROTLI_OPTIONS);
  return encoding === 'gzip' ? zlib.createGzip() : zlib.createDeflate();
}
