import { AddressInfo } from 'node:net';
import { Registry } from 'prom-client';
import { ChangeWatcher } from '../../src/changes/change-watcher';
import { isoMicros, printedTimestamp } from '../../src/database/printed-timestamp';
import { createTestApp, TestApp, TestAppOptions } from './create-app';
import { waitFor } from './wait-for';

export const KEY = { Authorization: 'Bearer test-key-primary' };
// What the long-polling specs share: an app on a port, feed paths, metrics.

export const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export interface Answer {
  status: number;
  body: {
    data: { id: string }[];
    meta: { limit: number; nextCursor: string; hasMore: boolean };
    errors?: unknown;
    detail?: string;
  };
  headers: Headers;
  /** When it came, in ms after it was sent. */
  ms: number;
}

/** A suite's app listening on a port, so that many requests can wait on it at once. */
export async function startApp(options: TestAppOptions = {}) {
  const before = { ...process.env };
  const t = await createTestApp(options);
  // The next app of the file reads the environment as it was.
  for (const name of Object.keys(process.env)) if (!(name in before)) delete process.env[name];
  Object.assign(process.env, before);
  await t.app.listen(0, '127.0.0.1');
  const base = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
  const get = async (path: string, headers: Record<string, string> = KEY): Promise<Answer> => {
    const sentAt = performance.now();
    const res = await fetch(`${base}${path}`, { headers });
    const body = (await res.json()) as Answer['body'];
    return { status: res.status, body, headers: res.headers, ms: performance.now() - sentAt };
  };
  return { t, get };
}

export const feedPath = (feed: string, cursor: string, query: string) =>
  `/api/data/changes/${feed}?cursor=${encodeURIComponent(cursor)}&${query}`;

/** The feed's cursor once caught up, past the safe point's margin. */
export async function caughtUp(
  get: (path: string) => Promise<Answer>,
  feed: string,
  filter = '',
): Promise<string> {
  await pause(150);
  let res = await get(`/api/data/changes/${feed}?limit=1000${filter}`);
  while (res.body.meta.hasMore)
    res = await get(feedPath(feed, res.body.meta.nextCursor, filter.replace(/^&/, '')));
  return res.body.meta.nextCursor;
}

export async function metric(t: TestApp, name: string, labels: Record<string, string> = {}) {
  const values = (await t.app.get(Registry).getSingleMetric(name)?.get())?.values ?? [];
  return values
    .filter((value) => Object.entries(labels).every(([key, v]) => value.labels[key] === v))
    .reduce((sum, value) => sum + value.value, 0);
}

export const waitingPolls = (t: TestApp, count: number) =>
  waitFor(async () => (await metric(t, 'change_feed_waiting_polls')) === count, {
    what: `${count} waiting polls`,
  });

/** A caught-up poll's answer: no row, the request's own cursor. */
export const emptyPage = (cursor: string, limit = 100) => ({
  data: [],
  meta: { limit, nextCursor: cursor, hasMore: false },
});

/** Waits until the app's change watcher has read past every row written so far. */
export async function watcherPastEveryChange(t: TestApp): Promise<void> {
  const [{ latest }] = (await t.dataSource.query(
    `SELECT ${printedTimestamp('max(updated_at)')} AS latest
     FROM (SELECT updated_at FROM links UNION ALL SELECT updated_at FROM clients) AS rows`,
  )) as { latest: string }[];
  const watcher = t.app.get(ChangeWatcher);
  await waitFor(() => (watcher.position ?? '') > isoMicros(latest), {
    what: 'the change watcher past every change',
  });
}
