import fc from 'fast-check';
import type { Pool, PoolClient } from 'pg';
import request from 'supertest';
import {
  PRINTED_CLIENT_COLUMNS,
  clientRowAsJson,
  PRINTED_LINK_COLUMNS,
  linkRowAsJson,
} from '../support/expected';
import { AUTH, createTestApp, TestApp } from '../support/create-app';
import { testPool } from '../support/pg-client';

// CHANGE_FEED_ROUNDS=50 npx jest test/e2e/changes-no-gaps.e2e-spec.ts for a longer hunt.
const ROUNDS = Number(process.env.CHANGE_FEED_ROUNDS ?? 5);
const LINKS = ['l0', 'l1', 'l2', 'l3'];
const BASE_CLIENTS = Array.from({ length: 12 }, (_, i) => `c${i}`);
const STATUSES = ['new', 'connected', 'other'];

type Op =
  | { kind: 'insert'; link: number; status: number }
  | { kind: 'status'; client: number; status: number }
  | { kind: 'delete'; client: number }
  | { kind: 'touchLink'; link: number };

/** One writer's transaction: it starts after `delayMs`, and stays open `holdMs` after its writes. */
interface Transaction {
  delayMs: number;
  holdMs: number;
  ops: Op[];
}

const op: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ kind: fc.constant('insert' as const), link: fc.nat(3), status: fc.nat(2) }),
  fc.record({ kind: fc.constant('status' as const), client: fc.nat(11), status: fc.nat(2) }),
  fc.record({ kind: fc.constant('delete' as const), client: fc.nat(11) }),
  fc.record({ kind: fc.constant('touchLink' as const), link: fc.nat(3) }),
);
const transaction: fc.Arbitrary<Transaction> = fc.record({
  delayMs: fc.integer({ min: 0, max: 1200 }),
  // Most commit at once; some stay open for seconds while others commit later changes.
  holdMs: fc.oneof({ weight: 2, arbitrary: fc.constant(0) }, fc.integer({ min: 300, max: 2500 })),
  ops: fc.array(op, { minLength: 1, maxLength: 4 }),
});

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// The no-gaps guarantee of the change feeds (docs/api.md), tested as a consumer meets it:
// writers with long and short transactions, a consumer polling (or long polling) throughout; once the writers
// stop and the feed is drained, the mirror equals the tables, every id and every field.
describe('Change feeds: no gaps (property)', () => {
  let t: TestApp;
  let writers: Pool;
  const mirror = { clients: new Map<string, unknown>(), links: new Map<string, unknown>() };
  const cursors: { clients?: string; links?: string } = {};
  let inserted = 0;

  beforeAll(async () => {
    t = await createTestApp();
    writers = testPool({ connectionString: process.env.DATABASE_URL, max: 8 });
    for (const id of LINKS) await writers.query('INSERT INTO links (id) VALUES ($1)', [id]);
    for (const [i, id] of BASE_CLIENTS.entries()) {
      await writers.query(`INSERT INTO clients (id, link_id, status) VALUES ($1, $2, 'new')`, [
        id,
        LINKS[i % LINKS.length],
      ]);
    }
  });
  afterAll(async () => {
    await writers.end();
    await t.close();
  });

  /** One page of a feed (long-polled up to `wait` s), applied to the mirror; true when caught up. */
  async function poll(feed: 'clients' | 'links', limit: number, wait = 0): Promise<boolean> {
    const cursor = cursors[feed] ? `&cursor=${encodeURIComponent(cursors[feed])}` : '';
    const waiting = wait > 0 ? `&wait=${wait}` : '';
    const res = await request(t.app.getHttpServer())
      .get(`/api/data/changes/${feed}?limit=${limit}${cursor}${waiting}`)
      .set(AUTH);
    expect(res.status).toBe(200);
    for (const row of res.body.data) mirror[feed].set(row.id, row);
    cursors[feed] = res.body.meta.nextCursor;
    return !res.body.meta.hasMore;
  }

  async function apply(client: PoolClient, step: Op): Promise<void> {
    if (step.kind === 'insert') {
      await client.query('INSERT INTO clients (id, link_id, status) VALUES ($1, $2, $3)', [
        `n${++inserted}`,
        LINKS[step.link],
        STATUSES[step.status],
      ]);
    } else if (step.kind === 'status') {
      await client.query('UPDATE clients SET status = $2 WHERE id = $1', [
        BASE_CLIENTS[step.client],
        STATUSES[step.status],
      ]);
    } else if (step.kind === 'delete') {
      await client.query('UPDATE clients SET is_deleted = NOT is_deleted WHERE id = $1', [
        BASE_CLIENTS[step.client],
      ]);
    } else {
      await client.query('UPDATE links SET created_at = created_at WHERE id = $1', [
        LINKS[step.link],
      ]);
    }
  }

  async function write({ delayMs, holdMs, ops }: Transaction): Promise<void> {
    await pause(delayMs);
    const client = await writers.connect();
    try {
      await client.query('BEGIN');
      for (const step of ops) await apply(client, step);
      await pause(holdMs);
      await client.query('COMMIT');
    } catch {
      // A deadlock between two random writers: that transaction is rolled back, as in life.
      await client.query('ROLLBACK');
    } finally {
      client.release();
    }
  }

  async function tables() {
    const clients = await t.dataSource.query(`SELECT ${PRINTED_CLIENT_COLUMNS} FROM clients`);
    const links = await t.dataSource.query(`SELECT ${PRINTED_LINK_COLUMNS} FROM links`);
    const byId = (
      rows: Record<string, string>[],
      asJson: (row: Record<string, string>) => object,
    ) => new Map<string, unknown>(rows.map((row) => [row.id, asJson(row)]));
    return { clients: byId(clients, clientRowAsJson), links: byId(links, linkRowAsJson) };
  }

  it(
    'keeps a polling mirror equal to the tables, whatever the writers do',
    async () => {
      await fc.assert(
        fc.asyncProperty(
          fc.array(transaction, { minLength: 3, maxLength: 8 }),
          fc.integer({ min: 1, max: 6 }),
          // 0: short polls 40 ms apart; else long polls of that many seconds, one consumer per feed.
          fc.constantFrom(0, 1, 2),
          async (transactions, limit, wait) => {
            let writing = true;
            const done = Promise.all(transactions.map(write)).finally(() => (writing = false));
            const follow = async (feed: 'clients' | 'links') => {
              while (writing) {
                await poll(feed, limit, wait);
                if (wait === 0) await pause(40);
              }
            };
            await Promise.all([follow('clients'), follow('links')]);
            await done;
            // Drained: past the safe point's margin, every feed caught up.
            await pause(300);
            while (!(await poll('clients', 1000)));
            while (!(await poll('links', 1000)));
            const expected = await tables();
            expect(mirror.clients).toEqual(expected.clients);
            expect(mirror.links).toEqual(expected.links);
          },
        ),
        { numRuns: ROUNDS, endOnFailure: true },
      );
    },
    60000 + ROUNDS * 8000,
  );
});
