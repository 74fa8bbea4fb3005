import { AddressInfo } from 'node:net';
import type { Client as PgClient } from 'pg';
import { TestApp } from '../support/create-app';
import { describeWith } from '../support/optional-program';
import { PatroniCluster } from '../support/patroni-cluster';
import { pause, startApp } from '../support/long-polls';
import { testClient } from '../support/pg-client';
import { waitFor } from '../support/wait-for';

const KEY = { Authorization: 'Bearer test-key-primary' };

interface Seen {
  at: number;
  status: number;
  retryAfter: string | null;
}

interface MirrorRow {
  id: string;
  linkId: string;
  status: string;
  updatedAt: string;
}

/**
 * docs/operations.md, "High availability": the API in front of the stack our users run — Patroni
 * on etcd, HAProxy routing to the leader — under readers, two long-polling feed consumers and a
 * writer that follows HAProxy, through (a) a switchover and (b) a crash of the leader's machine.
 * Measured from the promotion: reads back within 10 s, feeds within 15 s, nothing but 200s and
 * 503s with Retry-After meanwhile, and every consumer's mirror equal to the table afterwards.
 */
describeWith(
  ['patroni', 'patronictl', 'etcd', 'haproxy', 'pg_basebackup'],
  'Failover of a Patroni cluster behind HAProxy',
  () => {
    const cluster = new PatroniCluster();
    const database = new URL(process.env.DATABASE_URL as string).pathname.slice(1);
    let t: TestApp;
    let base = '';
    let stopped = false;
    const reads: Seen[] = [];
    const feeds: Seen[] = [];
    const mirrors = [new Map<string, MirrorRow>(), new Map<string, MirrorRow>()];
    const running: Promise<void>[] = [];
    let writes = 0;

    const get = async (path: string, into: Seen[]) => {
      try {
        const res = await fetch(`${base}${path}`, { headers: KEY });
        const body = await res.text();
        into.push({
          at: performance.now(),
          status: res.status,
          retryAfter: res.headers.get('retry-after'),
        });
        return { status: res.status, body };
      } catch {
        // The server never drops a connection: a network error is a failure like a 5xx.
        into.push({ at: performance.now(), status: 0, retryAfter: null });
        return { status: 0, body: '' };
      }
    };

    const loop = (step: () => Promise<unknown>, everyMs: number) =>
      running.push(
        (async () => {
          while (!stopped) {
            await step();
            await pause(everyMs);
          }
        })(),
      );

    /** A consumer: follows the clients feed with long polls, upserting by id. */
    const consume = (mirror: Map<string, MirrorRow>) =>
      loop(async () => {
        const cursor = (mirror as Map<string, MirrorRow> & { cursor?: string }).cursor;
        const query = `limit=1000&wait=5${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`;
        const { status, body } = await get(`/api/data/changes/clients?${query}`, feeds);
        if (status !== 200) return pause(1000);
        const page = JSON.parse(body) as { data: MirrorRow[]; meta: { nextCursor: string } };
        for (const row of page.data) mirror.set(row.id, row);
        (mirror as Map<string, MirrorRow> & { cursor?: string }).cursor = page.meta.nextCursor;
      }, 0);

    /** A writer through HAProxy: one-row changes, reconnecting when its connection breaks. */
    const write = () => {
      let client: PgClient | undefined;
      loop(async () => {
        try {
          if (!client) {
            client = testClient({
              connectionString: cluster.url(database),
              connectionTimeoutMillis: 2000,
            });
            await client.connect();
          }
          const n = writes++;
          await (n % 2 === 0
            ? client.query(
                `INSERT INTO clients (id, link_id, status) VALUES ($1, 'link-1', 'new')`,
                [`w-${n}`],
              )
            : client.query(`UPDATE clients SET status = 'connected' WHERE id = $1`, [
                `w-${n - 1}`,
              ]));
        } catch {
          await client?.end().catch(() => undefined);
          client = undefined;
          await pause(200);
        }
      }, 50);
    };

    /** Seconds from `from` until the last answer of `seen` that was not a 200. */
    const backWithin = (seen: Seen[], from: number, until: number) => {
      const failures = seen.filter((s) => s.at >= from && s.at <= until && s.status !== 200);
      return failures.length === 0 ? 0 : (failures.at(-1)!.at - from) / 1000;
    };

    const expectOnlyCleanRefusals = (seen: Seen[]) => {
      const unclean = seen.filter((s) => s.status !== 200 && !(s.status === 503 && s.retryAfter));
      expect(unclean).toEqual([]);
    };

    beforeAll(async () => {
      await cluster.start();
      process.env.TEST_SERVER_URL = cluster.url('postgres');
      process.env.DATABASE_URL = cluster.url(database);
      ({ t } = await startApp());
      base = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
      await t.dataSource.query(`INSERT INTO links (id) VALUES ('link-1')`);
      await t.dataSource.query(
        `INSERT INTO clients (id, link_id, status) SELECT 'c-' || g, 'link-1', 'new' FROM generate_series(1, 50) g`,
      );
    }, 120000);

    afterAll(async () => {
      stopped = true;
      await Promise.all(running);
      await t?.close();
      await cluster.stop();
    }, 60000);

    it('serves through a switchover and a crash of the leader, and every mirror equals the table', async () => {
      try {
        loop(() => get('/api/data/links/link-1', reads), 50);
        loop(() => get('/api/data/clients?limit=5', reads), 50);
        loop(() => get('/api/data/changes/links?limit=1', feeds), 100);
        consume(mirrors[0]);
        consume(mirrors[1]);
        write();
        await pause(3000);

        // (a) A switchover, the candidate promoted once patronictl is done.
        const commandAt = performance.now();
        const newLeader = await cluster.switchover();
        const promotedA = performance.now();
        await waitFor(() => feeds.at(-1)?.status === 200 && feeds.at(-1)!.at > promotedA, {
          what: 'the feeds back after the switchover',
          timeoutMs: 30000,
        });
        await pause(3000);
        const endA = performance.now();

        // (b) A crash of the new leader's machine: the synchronous standby is promoted after
        // the ttl.
        const survivor = newLeader === 'n1' ? 'n2' : 'n1';
        await cluster.synchronous(survivor);
        cluster.crashLeaderNow(newLeader);
        const promotedB = await cluster.promoted(survivor);
        await waitFor(() => feeds.at(-1)?.status === 200 && feeds.at(-1)!.at > promotedB, {
          what: 'the feeds back after the crash',
          timeoutMs: 30000,
        });
        await pause(3000);
        cluster.restart(newLeader);
        const endB = performance.now();

        const windows = {
          switchoverCommand: (promotedA - commandAt) / 1000,
          switchover: {
            reads: backWithin(reads, promotedA, endA),
            feeds: backWithin(feeds, promotedA, endA),
          },
          crash: {
            reads: backWithin(reads, promotedB, endB),
            feeds: backWithin(feeds, promotedB, endB),
          },
        };
        process.stderr.write(`failover windows (s): ${JSON.stringify(windows)}\n`);
        expect(windows.switchover.reads).toBeLessThan(10);
        expect(windows.switchover.feeds).toBeLessThan(15);
        expect(windows.crash.reads).toBeLessThan(10);
        expect(windows.crash.feeds).toBeLessThan(15);
        expectOnlyCleanRefusals(reads);
        expectOnlyCleanRefusals(feeds);

        stopped = true;
        await Promise.all(running.splice(0));
        // Every change the new primary holds reaches both mirrors.
        stopped = false;
        consume(mirrors[0]);
        consume(mirrors[1]);
        const table = await tableRows(cluster.url(database));
        await waitFor(
          () => mirrors.every((mirror) => differences(mirror, table).missing.length === 0),
          {
            what: 'the mirrors to catch up',
            timeoutMs: 30000,
          },
        );
        for (const mirror of mirrors) {
          // Only versions the crashed primary committed and never replicated may differ: newer
          // in a mirror than in the table, or rows the table lost.
          expect(differences(mirror, table).missing).toEqual([]);
        }
        expect(writes).toBeGreaterThan(50);
      } finally {
        stopped = true;
        await Promise.all(running.splice(0));
      }
    }, 180000);
  },
);

async function tableRows(url: string): Promise<Map<string, MirrorRow>> {
  const client = testClient({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<MirrorRow>(
      `SELECT id, link_id AS "linkId", status,
              to_char(updated_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS "updatedAt"
       FROM clients`,
    );
    return new Map(rows.map((row) => [row.id, row]));
  } finally {
    await client.end();
  }
}

/** Rows of the table a mirror lacks or holds in an older version: a change it missed. */
function differences(mirror: Map<string, MirrorRow>, table: Map<string, MirrorRow>) {
  const missing = [...table.values()].filter((row) => {
    const mirrored = mirror.get(row.id);
    return (
      !mirrored ||
      mirrored.updatedAt < row.updatedAt ||
      (mirrored.updatedAt === row.updatedAt && mirrored.status !== row.status)
    );
  });
  return { missing: missing.map((row) => row.id) };
}
