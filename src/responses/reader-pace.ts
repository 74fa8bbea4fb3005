import { ServerResponse } from 'node:http';
import { Writable } from 'node:stream';

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

/** Whether the client took any of the response between the two backlogs. */
export const hasTaken = (before: Backlog, after: Backlog): boolean =>
  after.pending < before.pending || after.queued < before.queued;

/**
 * Resolves true once one of `responses` can take more (drained, or closed), or false once none
 * of them has taken a byte for `stallMs`: a slow reader keeps taking some, one that stopped
 * takes none.
 */
export function firstReady(responses: ServerResponse[], stallMs: number): Promise<boolean> {
  return new Promise((resolve) => {
    let backlogs = responses.map(backlogOf);
    let lastTaken = performance.now();
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
      if (now.some((backlog, i) => hasTaken(backlogs[i], backlog))) lastTaken = performance.now();
      backlogs = now;
      if (performance.now() - lastTaken >= stallMs) settle(false);
    }, stallMs / 4);
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
