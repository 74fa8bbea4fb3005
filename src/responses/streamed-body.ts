import { compress, EncodedCopy, ownCopy, Receiver } from './encoded-copies';
import { drained, firstReady, socketsPolled } from './reader-pace';

/**
 * How far, in bytes waiting in the server, a reader may fall behind the fastest one before it is
 * detached: what one reader that stopped can hold of the pod's memory.
 */
export const DETACH_BEHIND_BYTES = 1024 * 1024;

/** How long a body waits for readers of whom none takes a byte before it detaches them all. */
export const READER_STALL_MS = 1000;

/** A receiver taken off a body, and where its body goes on: after the last piece it was sent. */
export interface Detached<R> {
  receiver: Receiver;
  resume: R | undefined;
}

export const EVERY_RECEIVER_LEFT = 'Every receiver of the body has left or was detached';

/**
 * A body streamed to its receivers (chunked) as it is written, at the pace of the fastest: each
 * piece goes to every receiver, and `write` waits until one of them can take more. A receiver
 * more than DETACH_BEHIND_BYTES behind, or all of them once none has taken a byte for
 * READER_STALL_MS, is detached and handed to `onDetached` with its own copy of the encoding and
 * where its body goes on, so no one waits for it and it holds nothing of the render. Once none
 * is left, `write` throws EVERY_RECEIVER_LEFT: the render may stop.
 */
export class StreamedBody<R> {
  private readonly attached = new Map<Receiver, () => void>();
  private readonly copies = new Set<EncodedCopy>();

  constructor(
    receivers: Iterable<Receiver>,
    private readonly onDetached: (detached: Detached<R>) => void,
    private resume?: R,
  ) {
    for (const receiver of receivers) {
      const leave = () => this.leave(receiver);
      receiver.res.once('close', leave);
      this.attached.set(receiver, leave);
      if (receiver.copy) this.copies.add(receiver.copy);
    }
  }

  /** Sends a piece to every attached receiver; `resume` names where the body goes on after it. */
  async write(bytes: Buffer, resume: R): Promise<void> {
    if (this.attached.size === 0) throw new Error(EVERY_RECEIVER_LEFT);
    const flushes = [...this.copies].map((copy) => compress(copy, bytes));
    for (const { res, copy } of this.attached.keys()) if (!copy && res.writable) res.write(bytes);
    await Promise.all(flushes);
    await Promise.all(
      [...this.copies]
        .filter(({ stream }) => stream.writableNeedDrain)
        .map(({ stream }) => drained(stream)),
    );
    this.resume = resume;
    await this.paced();
    if (this.attached.size === 0) throw new Error(EVERY_RECEIVER_LEFT);
  }

  end(): void {
    for (const { stream } of this.copies) stream.end();
    for (const { res, copy } of this.attached.keys()) if (!copy && res.writable) res.end();
  }

  /** Fails every attached response: cut, so none can be taken for complete. */
  fail(error: unknown): void {
    for (const { stream } of this.copies) stream.destroy();
    for (const receiver of this.attached.keys()) receiver.reject(error);
  }

  /** Cuts every attached response, with no failure to report: the body cannot go on. */
  cut(): void {
    for (const { stream } of this.copies) stream.destroy();
    for (const { res } of this.attached.keys()) res.destroy();
  }

  get hasReceivers(): boolean {
    return this.attached.size > 0;
  }

  /**
   * Waits for the fastest reader, detaching those far behind it, or all when none reads. Readers
   * compared have their sockets polled first: a socket whose kernel buffers have room drains with
   * no turn of the event loop, and would set a pace no reader could keep.
   */
  private async paced(): Promise<void> {
    if (this.attached.size > 1) await socketsPolled();
    for (;;) {
      const responses = [...this.attached.keys()].map(({ res }) => res);
      if (responses.length === 0 || responses.some((res) => !res.writableNeedDrain)) break;
      if (!(await firstReady(responses, READER_STALL_MS))) {
        for (const receiver of [...this.attached.keys()]) this.detach(receiver);
        return;
      }
    }
    for (const receiver of [...this.attached.keys()]) {
      if (receiver.res.writableLength > DETACH_BEHIND_BYTES) this.detach(receiver);
    }
  }

  private detach(receiver: Receiver): void {
    receiver.res.removeListener('close', this.attached.get(receiver) as () => void);
    this.attached.delete(receiver);
    const { copy } = receiver;
    if (copy) {
      if (ownCopy(receiver) === copy) this.copies.delete(copy);
    }
    this.onDetached({ receiver, resume: this.resume });
  }

  private leave(receiver: Receiver): void {
    this.attached.delete(receiver);
    const { copy } = receiver;
    if (copy === undefined) return;
    copy.receivers.delete(receiver);
    if (copy.receivers.size === 0) {
      copy.stream.destroy();
      this.copies.delete(copy);
    }
  }
}

/**
 * The body of a detached receiver, to go on alone once it has taken what it was sent (it holds
 * nothing meanwhile); undefined when its response closes first.
 */
export async function goingOnAlone<R>(
  { receiver, resume }: Detached<R>,
  onDetached: (detached: Detached<R>) => void,
): Promise<StreamedBody<R> | undefined> {
  if (await drained(receiver.res)) return new StreamedBody([receiver], onDetached, resume);
  receiver.copy?.stream.destroy();
  return undefined;
}
