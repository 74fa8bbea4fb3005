import zlib from 'node:zlib';
import compression from 'compression';
import { Request, Response } from 'express';
import Negotiator from 'negotiator';
import { BROTLI_OPTIONS, COMPRESSION_MIN_EXCLUSIVE_BYTES } from './compression';

type Encoding = 'br' | 'gzip' | 'deflate';

// The choice `compression` (compressionMiddleware) makes, with the same candidates and the same
// preference among equally acceptable ones; bodies are compressed with its settings.
const SUPPORTED = ['br', 'gzip', 'deflate', 'identity'];
const PREFERRED: Encoding[] = ['br', 'gzip'];
const NO_TRANSFORM = /(?:^|,)\s*?no-transform\s*?(?:,|$)/;
// negotiator (the version `compression` uses) takes the preferred ones as a second argument,
// which its type definitions leave out.
const chooseEncoding = Negotiator.prototype.encoding as unknown as (
  this: Negotiator,
  available: readonly string[],
  preferred: readonly string[],
) => string | undefined;

function compress(encoding: Encoding, body: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const done = (error: Error | null, result: Buffer) => (error ? reject(error) : resolve(result));
    if (encoding === 'br') zlib.brotliCompress(body, BROTLI_OPTIONS, done);
    else if (encoding === 'gzip') zlib.gzip(body, done);
    else zlib.deflate(body, done);
  });
}

/**
 * A body sent many times, compressed at most once per encoding: for each request, what
 * compressionMiddleware would send, without compressing it again. The middleware leaves a
 * response that already has a Content-Encoding as it is.
 */
export class PrecompressedBody {
  private readonly encoded = new Map<Encoding, Promise<Buffer>>();

  constructor(readonly identity: Buffer) {}

  get length(): number {
    return this.identity.length;
  }

  /** Sends the body as kept, or compressed as the request accepts; a 304 carries neither. */
  async send(req: Request, res: Response): Promise<void> {
    const sent = req.fresh ? { body: this.identity } : await this.for(req, res);
    if (sent.encoding) res.setHeader('Content-Encoding', sent.encoding);
    res.send(sent.body);
  }

  /** The encoding `compression` would choose for this response, if any, and the body in it. */
  async for(req: Request, res: Response): Promise<{ encoding?: Encoding; body: Buffer }> {
    const encoding = this.encodingFor(req, res);
    if (encoding === undefined) return { body: this.identity };
    return { encoding, body: await this.encodedAs(encoding) };
  }

  /** Starts compressing into the encodings browsers ask for, so no request waits for it. */
  compressAhead(): void {
    for (const encoding of PREFERRED) this.encodedAs(encoding).catch(() => undefined);
  }

  private encodedAs(encoding: Encoding): Promise<Buffer> {
    let body = this.encoded.get(encoding);
    if (body === undefined) {
      body = compress(encoding, this.identity);
      this.encoded.set(encoding, body);
      body.catch(() => this.encoded.delete(encoding));
    }
    return body;
  }

  private encodingFor(req: Request, res: Response): Encoding | undefined {
    // The middleware's own filter (a compressible Content-Type), then its other rules in order.
    if (!compression.filter(req, res)) return undefined;
    if (NO_TRANSFORM.test(String(res.getHeader('Cache-Control') ?? ''))) return undefined;
    if (this.identity.length <= COMPRESSION_MIN_EXCLUSIVE_BYTES || req.method === 'HEAD') {
      return undefined;
    }
    if (!req.headers['accept-encoding']) return undefined;
    const chosen = chooseEncoding.call(new Negotiator(req), SUPPORTED, PREFERRED);
    return chosen === undefined || chosen === 'identity' ? undefined : (chosen as Encoding);
  }
}
