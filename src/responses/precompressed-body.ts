import { Request, Response } from 'express';
import { compress, Encoding, encodingFor, PREFERRED_ENCODINGS } from './compression';

/**
 * A body sent many times, compressed at most once per encoding: for each request, what
 * compressionMiddleware would send, without compressing it again.
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
    const encoding = encodingFor(req, res, this.identity.length);
    if (encoding === undefined) return { body: this.identity };
    return { encoding, body: await this.encodedAs(encoding) };
  }

  /** Starts compressing into the encodings browsers ask for, so no request waits for it. */
  compressAhead(): void {
    for (const encoding of PREFERRED_ENCODINGS) this.encodedAs(encoding).catch(() => undefined);
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
}
