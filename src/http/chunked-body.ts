import { createHash } from 'node:crypto';
import { Readable, pipeline } from 'node:stream';
import { Request, Response } from 'express';

const EMPTY = Buffer.alloc(0);

/**
 * A body built and sent in pieces: each piece becomes bytes as it is made, so a long body is
 * held outside V8's heap, and nothing of it is copied again. Made whole as one string (a
 * million links are ~100 MB), it took two to three times its length of heap and aborted a
 * process under the image's heap bound. Sent as the connection takes it (through
 * compressionMiddleware); the ETag, known before the first byte goes, is the one Express
 * computes over the whole body.
 */
export class ChunkedBody {
  private readonly pieces: Buffer[] = [];
  private bytes = 0;
  private readonly sha1 = createHash('sha1');

  append(text: string): void {
    const piece = Buffer.from(text);
    this.pieces.push(piece);
    this.bytes += piece.length;
    this.sha1.update(piece);
  }

  get length(): number {
    return this.bytes;
  }

  get chunks(): readonly Buffer[] {
    return this.pieces;
  }

  /** `etag(body, { weak: true })` of the whole body; call once, when the body is complete. */
  weakEtag(): string {
    return `W/"${this.bytes.toString(16)}-${this.sha1.digest('base64').slice(0, 27)}"`;
  }

  /**
   * Sends the body after the headers already set. Express answers a fresh request (its ETag
   * matched) with a 304 and no body; a client that leaves stops the sending.
   */
  send(req: Request, res: Response): void {
    if (req.fresh) {
      res.send(EMPTY);
      return;
    }
    res.setHeader('Content-Length', this.bytes);
    if (req.method === 'HEAD') {
      res.end();
      return;
    }
    pipeline(Readable.from(this.pieces), res, () => undefined);
  }
}
