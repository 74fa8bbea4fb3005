import { Transform } from 'node:stream';
import zlib from 'node:zlib';
import { Request, Response } from 'express';
import { compressor, Encoding, encodingFor } from './compression';
import { DeflateContinuation, DeflateSums } from './deflate-continuation';

/** A response a streamed body goes to. */
export interface Receiver {
  req: Request;
  res: Response;
  /** Settles the response's serve(): once it is over, or with the render's failure. */
  resolve: () => void;
  reject: (error: unknown) => void;
  /** The compressed copy its body goes through; none when it is sent as it is. */
  copy?: EncodedCopy;
}

/** A compressed copy of a streamed body, for the receivers that chose its encoding. */
export interface EncodedCopy {
  stream: Transform;
  receivers: Set<Receiver>;
  /** The sums of what a shared gzip or deflate copy compressed, for a receiver that leaves it. */
  sums?: DeflateSums;
}

const isDeflate = (encoding: Encoding): encoding is 'gzip' | 'deflate' => encoding !== 'br';

/**
 * The compressed copies for receivers about to be streamed a body, each given its
 * Content-Encoding: one per gzip or deflate encoding, shared by the receivers that chose it
 * (each piece compressed once), and one per Brotli receiver, which cannot leave a shared one.
 */
export function encodedCopies(receivers: Iterable<Receiver>): Set<EncodedCopy> {
  const shared = new Map<Encoding, EncodedCopy>();
  const copies = new Set<EncodedCopy>();
  for (const receiver of receivers) {
    const encoding = encodingFor(receiver.req, receiver.res, Infinity);
    if (encoding === undefined) continue;
    receiver.res.setHeader('Content-Encoding', encoding);
    let copy = isDeflate(encoding) ? shared.get(encoding) : undefined;
    if (copy === undefined) {
      copy = wired({ stream: compressor(encoding), receivers: new Set() });
      if (isDeflate(encoding)) shared.set(encoding, copy);
      copies.add(copy);
    }
    copy.receivers.add(receiver);
    receiver.copy = copy;
  }
  for (const [encoding, copy] of shared) {
    if (copy.receivers.size > 1 && isDeflate(encoding)) copy.sums = new DeflateSums(encoding);
  }
  return copies;
}

/** Writes a piece to the copy: compressed once for all its receivers. */
export function compress(copy: EncodedCopy, bytes: Buffer): Promise<void> | undefined {
  if (copy.receivers.size < 2 || copy.sums === undefined) {
    copy.stream.write(bytes);
    return undefined;
  }
  // Flushed to a byte boundary, each receiver holds a stream it can go on with alone.
  const { stream } = copy;
  copy.sums.add(bytes);
  stream.write(bytes);
  return new Promise((resolve) => {
    const done = () => {
      stream.removeListener('close', done);
      resolve();
    };
    stream.once('close', done);
    (stream as zlib.Gzip).flush(zlib.constants.Z_SYNC_FLUSH, done);
  });
}

/**
 * Takes `receiver` out of its copy, its own from then on: the copy itself when no one else
 * uses it, else a continuation of the stream it was sent so far.
 */
export function ownCopy(receiver: Receiver): EncodedCopy | undefined {
  const { copy } = receiver;
  if (copy === undefined || copy.receivers.size === 1) return copy;
  copy.receivers.delete(receiver);
  const sums = copy.sums as DeflateSums;
  const own = wired({
    stream: new DeflateContinuation(sums.copy()),
    receivers: new Set([receiver]),
  });
  receiver.copy = own;
  return own;
}

function wired(copy: EncodedCopy): EncodedCopy {
  copy.stream.on('data', (chunk: Buffer) => {
    for (const { res } of copy.receivers) if (res.writable) res.write(chunk);
  });
  copy.stream.on('end', () => {
    for (const { res } of copy.receivers) if (res.writable) res.end();
  });
  copy.stream.on('error', (error) => {
    for (const receiver of copy.receivers) receiver.reject(error);
  });
  return copy;
}
