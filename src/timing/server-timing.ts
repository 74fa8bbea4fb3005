import { AsyncLocalStorage } from 'node:async_hooks';
import { ServerResponse } from 'node:http';
import onHeaders from 'on-headers';

/**
 * The time a request has waited on its database: while at least one of its reads is under way
 * (a pool checkout and a statement, or statements run side by side, count once).
 */
class DatabaseTime {
  private running = 0;
  private since = 0;
  private doneMs = 0;

  readonly start = (): void => {
    if (this.running++ === 0) this.since = performance.now();
  };

  readonly end = (): void => {
    if (--this.running === 0) this.doneMs += performance.now() - this.since;
  };

  millisecondsAt(now: number): number {
    return this.doneMs + (this.running > 0 ? now - this.since : 0);
  }
}

const requests = new AsyncLocalStorage<DatabaseTime>();
const milliseconds = (ms: number) => Math.round(ms * 10) / 10;

/** `work`, a database read, counted in the database time of the request it serves, if any. */
export function timeDatabase<T>(work: Promise<T>): Promise<T> {
  const time = requests.getStore();
  if (time === undefined) return work;
  time.start();
  work.then(time.end, time.end);
  return work;
}

/**
 * Runs `next`, the rest of the request's handling, keeping its database time, and gives the
 * response a `Server-Timing` header (docs/api.md, Server-Timing): `db`, the database time, and
 * `total`, the time since `startedAt`, both in milliseconds until the headers are written, which
 * for a body sent as it is read (List Links) is when its first part is ready.
 */
export function withServerTiming(res: ServerResponse, startedAt: number, next: () => void): void {
  const time = new DatabaseTime();
  onHeaders(res, () => {
    const now = performance.now();
    const db = milliseconds(time.millisecondsAt(now));
    res.setHeader('Server-Timing', `db;dur=${db}, total;dur=${milliseconds(now - startedAt)}`);
  });
  requests.run(time, next);
}
