import { ServerResponse } from 'node:http';
import { Writable } from 'node:stream';
import { setImmediate as checkPhase } from 'node:timers/promises';

/** What of a response its client has not taken yet. */
export interface Backlog {
  /** Bytes written to the response and not yet to the connection. */
  pending: number;
  /** Of those, bytes the kernel has not yet accepted from the socket's current write. */
  queued: number;
}

/**
 * Bytes the kernel has not yet taken from the socket's current write: a write is handed on whole,
 * and only libuv's queue shows a slow client taking part of it. (Node reads the same field.)
 */
function queuedBytes(res: ServerResponse): number {
  const handle = (res.socket as { _handle?: { writeQueueSize?: number } } | null)?._handle;
  return handle?.writeQueueSize ?? 0;
}

export const backlogOf = (res: ServerResponse): Backlog => ({
  pending: res.writableLength,
  queued: queuedBytes(res),
});

// Samples in a stall: a reader that took nothing in this many in a row has stopped.
const STALL_SAMPLES = 4;

/** Whether the client took any of the response between the two backlogs. */
export const hasTaken = (before: Backlog, after: Backlog): boolean =>
  after.pending < before.pending || after.queued < before.queued;

/**
 * Resolves true once one of `responses` can take more (drained, or closed), or false once none
 * of them has taken a byte for `stallMs`: a slow reader keeps taking some, one that stopped
 * takes none. The stall is counted in samples, each after the event loop has heard from the
 * sockets, never in wall time: when the whole process stood still (a pause of the machine, a
 * long collection), the first sample after it comes before the sockets are read, and would take
 * every reader for stalled.
 */
export function firstReady(responses: ServerResponse[], stallMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    let backlogs = responses.map(backlogOf);
    let stillSamples = 0;
    const settle = (isReady: boolean) => {
      clearInterval(sampler);
      for (const res of responses) {
        res.removeListener('drain', ready);
        res.removeListener('close', ready);
      }
      resolve(isReady);
    };
    const ready = () => settle(true);
    const sampler = setInterval(() => {
      const now = responses.map(backlogOf);
      const isTaking = now.some((backlog, i) => hasTaken(backlogs[i], backlog));
      backlogs = now;
      stillSamples = isTaking ? 0 : stillSamples + 1;
      if (stillSamples >= STALL_SAMPLES) settle(false);
    }, stallMs / STALL_SAMPLES);
    for (const res of responses) {
      res.once('drain', ready);
      res.once('close', ready);
    }
  });
}

/** Resolves true once `res` can take more (it drained), false if it closes first. */
export function drained(res: ServerResponse | Writable): Promise<boolean> {
  if (res.destroyed || res.writableEnded) return Promise.resolve(false);
  if (!res.writableNeedDrain) return Promise.resolve(true);
  return new Promise((resolve) => {
    const settle = (isDrained: boolean) => {
      res.removeListener('drain', onDrain);
      res.removeListener('close', onClose);
      resolve(isDrained);
    };
    const onDrain = () => settle(true);
    const onClose = () => settle(false);
    res.once('drain', onDrain);
    res.once('close', onClose);
  });
}

/**
 * Resolves once the event loop has polled every socket since the call: an immediate runs in
 * the check phase of this turn, which may follow no poll since; one set from it runs in the next
 * turn's, after its poll.
 */
export async function socketsPolled(): Promise<void> {
  await checkPhase();
  await checkPhase();
}
