import { Transform } from 'node:stream';
import etag from 'etag';
import { Request, Response } from 'express';
import { compressor, Encoding, encodingFor } from './compression';
import { PrecompressedBody } from './precompressed-body';

interface Receiver {
  req: Request;
  res: Response;
  /** Settles the receiver's serve(): once its response is over, or with the render's failure. */
  resolve: () => void;
  reject: (error: unknown) => void;
}

/** A body kept whole, with the weak ETag Express gives its bytes. */
export interface KeptBody {
  body: PrecompressedBody;
  etag: string;
}

/** A compressed copy of the stream for the receivers that chose its encoding. */
interface EncodedCopy {
  stream: Transform;
  receivers: Set<Receiver>;
}

/**
 * One body, rendered once for every request that joined it before its first byte went out, in
 * memory bounded by `maxKeptBytes` whatever its length:
 * - While the body stays within `maxKeptBytes` it is collected; complete, it becomes a
 *   PrecompressedBody sent to each receiver (with a Content-Length, compressed once per
 *   encoding, and the ETag of its bytes) and returned by `end()` for the caller to keep.
 * - Past that, it is streamed: the collected bytes, then each piece as it is written, to every
 *   receiver (chunked), compressed once per encoding that receivers chose; `write` waits until
 *   every receiver has taken the previous piece, so a render moves at the pace of its slowest
 *   reader (one that stops reading is cut by the server's write timeout). From then on no one
 *   joins. A failure then cuts every response, so no one can take a cut body for complete.
 */
export class SharedRender {
  private readonly receivers = new Set<Receiver>();
  private collected: Buffer[] = [];
  private collectedBytes = 0;
  private encoded?: Map<Encoding, EncodedCopy>;
  private isOver = false;
  private streamedEtag = '';

  constructor(private readonly maxKeptBytes: number) {}

  /**
   * The ETag of a body streamed, named before any of it is made: a body kept whole is tagged by
   * its bytes, one streamed cannot be (its tag goes out before its bytes).
   */
  begin(streamedEtag: string): void {
    this.streamedEtag = streamedEtag;
  }

  /** Whether a request may still join: nothing has been sent yet. */
  get isJoinable(): boolean {
    return this.encoded === undefined && !this.isOver;
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
        this.leave(receiver);
        resolve();
      });
    });
  }

  /** Adds a piece of the body; resolves when the render may go on to the next one. */
  async write(piece: string): Promise<void> {
    const bytes = Buffer.from(piece);
    if (this.encoded === undefined) {
      this.collected.push(bytes);
      this.collectedBytes += bytes.length;
      if (this.collectedBytes <= this.maxKeptBytes) return;
      this.startStreaming();
    } else if (this.receivers.size === 0) {
      throw new Error('Every receiver of the list has left');
    } else {
      this.send(bytes);
    }
    await this.taken();
  }

  /** Ends the body: the whole body and its ETag when it was collected, to keep; else undefined. */
  end(): KeptBody | undefined {
    this.isOver = true;
    if (this.encoded === undefined) {
      const identity = Buffer.concat(this.collected, this.collectedBytes);
      this.collected = [];
      const kept = { body: new PrecompressedBody(identity), etag: etag(identity, { weak: true }) };
      for (const { req, res, reject } of this.receivers) {
        res.setHeader('ETag', kept.etag);
        kept.body.send(req, res).catch(reject);
      }
      return kept;
    }
    for (const copy of this.encoded.values()) copy.stream.end();
    for (const { res } of this.receivers) if (res.writable && !this.encodingOf(res)) res.end();
    return undefined;
  }

  /** Fails every receiver: before streaming, each gets the error's problem; after, a cut. */
  fail(error: unknown): void {
    this.isOver = true;
    this.collected = [];
    for (const copy of this.encoded?.values() ?? []) copy.stream.destroy();
    for (const receiver of this.receivers) receiver.reject(error);
  }

  private startStreaming(): void {
    this.encoded = new Map();
    for (const receiver of this.receivers) {
      const { req, res } = receiver;
      res.setHeader('ETag', this.streamedEtag);
      // A request whose ETag matched by now gets its 304 rather than the stream; a HEAD, the
      // headers alone.
      if (req.fresh) res.status(304);
      if (req.fresh || req.method === 'HEAD') {
        res.end();
        continue;
      }
      const encoding = encodingFor(req, res, Infinity);
      if (encoding === undefined) continue;
      res.setHeader('Content-Encoding', encoding);
      let copy = this.encoded.get(encoding);
      if (copy === undefined) copy = this.encodeFor(encoding);
      copy.receivers.add(receiver);
    }
    const collected = Buffer.concat(this.collected, this.collectedBytes);
    this.collected = [];
    this.send(collected);
  }

  private encodeFor(encoding: Encoding): EncodedCopy {
    const copy: EncodedCopy = { stream: compressor(encoding), receivers: new Set() };
    copy.stream.on('data', (chunk: Buffer) => {
      for (const { res } of copy.receivers) if (res.writable) res.write(chunk);
    });
    copy.stream.on('end', () => {
      for (const { res } of copy.receivers) if (res.writable) res.end();
    });
    copy.stream.on('error', (error) => {
      for (const receiver of copy.receivers) receiver.reject(error);
    });
    this.encoded?.set(encoding, copy);
    return copy;
  }

  private send(bytes: Buffer): void {
    for (const copy of this.encoded?.values() ?? []) copy.stream.write(bytes);
    for (const { res } of this.receivers) {
      if (res.writable && !this.encodingOf(res)) res.write(bytes);
    }
  }

  /** Resolves once every receiver and every compressor can take more. */
  private async taken(): Promise<void> {
    const busy = [
      ...[...this.receivers].map(({ res }) => res),
      ...[...(this.encoded?.values() ?? [])].map((copy) => copy.stream),
    ].filter((stream) => stream.writableNeedDrain && !stream.destroyed);
    await Promise.all(busy.map(drainedOrClosed));
  }

  private encodingOf(res: Response): Encoding | undefined {
    return res.getHeader('Content-Encoding') as Encoding | undefined;
  }

  private leave(receiver: Receiver): void {
    this.receivers.delete(receiver);
    for (const [encoding, copy] of this.encoded ?? []) {
      copy.receivers.delete(receiver);
      if (copy.receivers.size === 0 && !this.isOver) {
        copy.stream.destroy();
        this.encoded?.delete(encoding);
      }
    }
  }
}

function drainedOrClosed(stream: NodeJS.WritableStream & { destroyed: boolean }): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      stream.removeListener('drain', done);
      stream.removeListener('close', done);
      resolve();
    };
    stream.on('drain', done);
    stream.on('close', done);
  });
}
