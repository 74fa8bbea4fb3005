import etag from 'etag';
import { Request, Response } from 'express';
import { encodedCopies, Receiver } from './encoded-copies';
import { PrecompressedBody } from './precompressed-body';
import { Detached, StreamedBody } from './streamed-body';

/** A body kept whole, with the weak ETag Express gives its bytes. */
export interface KeptBody {
  body: PrecompressedBody;
  etag: string;
}

/** A piece of the body, and where the body goes on after it (see Detached). */
interface Piece<R> {
  bytes: Buffer;
  resume: R;
}

/**
 * One body, rendered once for every request that joined it before its first byte went out, in
 * memory bounded by `maxKeptBytes` whatever its length:
 * - While the body stays within `maxKeptBytes` it is collected; complete, it becomes a
 *   PrecompressedBody sent to each receiver (with a Content-Length, compressed once per
 *   encoding, and the ETag of its bytes) and returned by `end()` for the caller to keep.
 * - Past that, it is streamed (StreamedBody): the collected pieces, then each piece as it is
 *   written, to every receiver (chunked), at the pace of the fastest reader; one that falls
 *   behind goes to `onDetached`, to go on alone. From then on no one joins. A failure then cuts
 *   every attached response, so no one can take a cut body for complete.
 */
export class SharedRender<R> {
  private readonly receivers = new Set<Receiver>();
  private collected: Piece<R>[] = [];
  private collectedBytes = 0;
  private streamed?: StreamedBody<R>;
  private isOver = false;
  private streamedEtag = '';

  constructor(
    private readonly maxKeptBytes: number,
    private readonly onDetached: (detached: Detached<R>) => void,
  ) {}

  /**
   * The ETag of a body streamed, named before any of it is made: a body kept whole is tagged by
   * its bytes, one streamed cannot be (its tag goes out before its bytes).
   */
  begin(streamedEtag: string): void {
    this.streamedEtag = streamedEtag;
  }

  /** Whether a request may still join: nothing has been sent yet. */
  get isJoinable(): boolean {
    return this.streamed === undefined && !this.isOver;
  }

  /**
   * Sends the body on `res` as it is rendered; settles when the response is over, or rejects
   * with the render's failure (answered as a problem, or a cut response once streaming).
   */
  serve(req: Request, res: Response): Promise<void> {
    return new Promise((resolve, reject) => {
      const receiver = { req, res, resolve, reject };
      this.receivers.add(receiver);
      res.once('close', () => {
        this.receivers.delete(receiver);
        resolve();
      });
    });
  }

  /**
   * Adds a piece of the body, after which it goes on at `resume`; resolves when the render may
   * go on to the next one.
   */
  async write(piece: string, resume: R): Promise<void> {
    const bytes = Buffer.from(piece);
    if (this.streamed !== undefined) return this.streamed.write(bytes, resume);
    this.collected.push({ bytes, resume });
    this.collectedBytes += bytes.length;
    if (this.collectedBytes <= this.maxKeptBytes) return;
    const streamed = this.startStreaming();
    const collected = this.collected;
    this.collected = [];
    // Each collected piece is let go once sent.
    for (let next = collected.shift(); next; next = collected.shift()) {
      await streamed.write(next.bytes, next.resume);
    }
  }

  /** Ends the body: the whole body and its ETag when it was collected, to keep; else undefined. */
  end(): KeptBody | undefined {
    this.isOver = true;
    if (this.streamed !== undefined) {
      this.streamed.end();
      return undefined;
    }
    const identity = Buffer.concat(
      this.collected.map(({ bytes }) => bytes),
      this.collectedBytes,
    );
    this.collected = [];
    const kept = { body: new PrecompressedBody(identity), etag: etag(identity, { weak: true }) };
    for (const { req, res, reject } of this.receivers) {
      res.setHeader('ETag', kept.etag);
      kept.body.send(req, res).catch(reject);
    }
    return kept;
  }

  /** Fails every receiver: before streaming, each gets the error's problem; after, a cut. */
  fail(error: unknown): void {
    this.isOver = true;
    this.collected = [];
    if (this.streamed !== undefined) this.streamed.fail(error);
    else for (const receiver of this.receivers) receiver.reject(error);
  }

  private startStreaming(): StreamedBody<R> {
    const streamed: Receiver[] = [];
    for (const receiver of this.receivers) {
      const { req, res } = receiver;
      res.setHeader('ETag', this.streamedEtag);
      // A request whose ETag matched by now gets its 304 rather than the stream; a HEAD, the
      // headers alone.
      if (req.fresh) res.status(304);
      if (req.fresh || req.method === 'HEAD') res.end();
      else streamed.push(receiver);
    }
    encodedCopies(streamed);
    this.streamed = new StreamedBody(streamed, this.onDetached);
    return this.streamed;
  }
}
