import zlib from 'node:zlib';
import compression from 'compression';
import { Request, RequestHandler, Response } from 'express';
import Negotiator from 'negotiator';

/** Bodies of this many bytes or fewer are sent as they are: compressing them gains nothing. */
export const COMPRESSION_MIN_EXCLUSIVE_BYTES = 1024;

/** Brotli at quality 4 (`compression`'s default, stated for the bodies compressed ahead too). */
export const BROTLI_OPTIONS = { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 4 } };

export type Encoding = 'br' | 'gzip' | 'deflate';

/**
 * Compressions at once: libuv's thread pool runs four, so more would only hold their zlib state
 * (a few hundred KB each) while they wait there.
 */
export const COMPRESSIONS_AT_ONCE = 4;

/** A turn to compress, for the response's caller; the release is called once it is done. */
export type CompressionTurn = (res: Response) => Promise<() => void>;

/**
 * Compression for callers that accept an encoding, as `compression` would choose it
 * (encodingFor), of each body sent whole by one `res.end`, which is how every response not
 * compressed ahead is sent. The body is compressed whole in the thread pool in its caller's turn
 * (`turn`, COMPRESSIONS_AT_ONCE at once), then sent with its length: a zlib state lives only while
 * it compresses, never while a slow client reads, so 256 compressed pages at once hold four states,
 * not 256. A response that already has a Content-Encoding (a body compressed ahead, or once for
 * many responses), or was written in pieces, is left as it is. A caller without Accept-Encoding
 * skips this; its responses still say `Vary: Accept-Encoding` (responseHeaders).
 */
export function compressionMiddleware(turn: CompressionTurn): RequestHandler {
  return (req, res, next) => {
    if (req.headers['accept-encoding'] !== undefined) compressWholeBody(req, res, turn);
    next();
  };
}

function compressWholeBody(req: Request, res: Response, turn: CompressionTurn): void {
  const end = res.end.bind(res) as (...args: unknown[]) => Response;
  let isEnding = false;
  res.end = ((...args: unknown[]) => {
    // Ended already, its body on the way: as Node ignores an end after the first.
    if (isEnding) return res;
    const [chunk, encodingOrDone] = args;
    const done = args.find((arg) => typeof arg === 'function');
    if (res.headersSent || res.hasHeader('Content-Encoding')) return end(...args);
    if (typeof chunk !== 'string' && !Buffer.isBuffer(chunk)) return end(...args);
    const charset =
      typeof encodingOrDone === 'string' ? (encodingOrDone as BufferEncoding) : 'utf8';
    const body = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk, charset);
    const encoding = encodingFor(req, res, body.length);
    if (encoding === undefined) return end(...args);
    isEnding = true;
    void compressInTurn(res, turn, encoding, body).then(
      (compressed) => {
        if (compressed === undefined) return;
        res.setHeader('Content-Encoding', encoding);
        res.setHeader('Content-Length', compressed.length);
        end(compressed, done);
      },
      // zlib failed: the body goes as it is, which every caller accepts.
      () => end(body, done),
    );
    return res;
  }) as Response['end'];
}

/** The body compressed in the response's turn; undefined when its client left meanwhile. */
async function compressInTurn(
  res: Response,
  turn: CompressionTurn,
  encoding: Encoding,
  body: Buffer,
): Promise<Buffer | undefined> {
  const release = await turn(res);
  try {
    return res.destroyed ? undefined : await compress(encoding, body);
  } finally {
    release();
  }
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
