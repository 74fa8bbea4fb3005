import type { Client as PgClient } from 'pg';
import request from 'supertest';
import { AUTH, createTestApp, TestApp } from '../support/create-app';
import { asClientJson, asLinkJson } from '../support/expected';
import { ClientRow, insertClients, insertLinks, LinkRow } from '../support/fixtures';
import { scrapeMetrics } from '../support/metrics';
import { testClient } from '../support/pg-client';

const LINKS: LinkRow[] = ['l-b', 'L-a', 'l-a'].map((id, i) => ({
  id,
  createdAt: '2026-01-01T00:00:00Z',
  updatedAt: `2026-01-0${1 + (i % 2)}T00:00:00.000001Z`,
}));
// Ties on updatedAt, ids that sort differently by locale and by byte ('B' < 'a' < 'ä').
const CLIENTS: ClientRow[] = ['a', 'B', 'ä', 'a-1', 'Z', 'b'].map((id, i) => ({
  id,
  linkId: i % 2 ? 'l-a' : 'l-b',
  status: ['new', 'connected', 'gone'][i % 3],
  isDeleted: i === 4,
  createdAt: '2026-01-01T00:00:00Z',
  updatedAt: `2026-02-0${1 + (i % 3)}T00:00:00.000${i % 2}00Z`,
}));
const byUpdatedAtThenId = (a: { id: string; updatedAt?: string }, b: typeof a) =>
  (a.updatedAt as string).localeCompare(b.updatedAt as string) ||
  Buffer.compare(Buffer.from(a.id), Buffer.from(b.id));

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('Change feeds', () => {
  let t: TestApp;
  const get = (url: string) => request(t.app.getHttpServer()).get(url).set(AUTH);

  /** Follows a feed from `cursor` (or the start) until hasMore is false. */
  async function drain(path: string, limit: number, cursor?: string) {
    const rows: { id: string; updatedAt?: string }[] = [];
    for (;;) {
      const from = cursor === undefined ? '' : `&cursor=${encodeURIComponent(cursor)}`;
      const res = await get(`${path}${path.includes('?') ? '&' : '?'}limit=${limit}${from}`).expect(
        200,
      );
      expect(res.body.meta).toEqual({
        limit,
        nextCursor: expect.any(String),
        hasMore: expect.any(Boolean),
      });
      rows.push(...res.body.data);
      cursor = res.body.meta.nextCursor as string;
      if (!res.body.meta.hasMore) return { rows, cursor };
    }
  }

  const safePointLag = async () => {
    const metrics = await scrapeMetrics(t.app);
    return Number(/^change_feed_safe_point_lag_seconds (\S+)$/m.exec(metrics)?.[1]);
  };

  beforeAll(async () => {
    t = await createTestApp();
    await insertLinks(t.dataSource, LINKS);
    await insertClients(t.dataSource, CLIENTS);
  });
  afterAll(() => t.close());

  it('copies the whole client table on a first walk, by updatedAt then id byte order', async () => {
    const { rows } = await drain('/api/data/changes/clients', 4);
    expect(rows).toEqual([...CLIENTS].sort(byUpdatedAtThenId).map(asClientJson));
    expect(rows.find((row) => row.id === 'Z')).toMatchObject({ isDeleted: true });
  });

  it('copies the links the same way, one row per page', async () => {
    const { rows } = await drain('/api/data/changes/links', 1);
    expect(rows).toEqual([...LINKS].sort(byUpdatedAtThenId).map(asLinkJson));
  });

  it('reports hasMore only while rows are ready, and a cursor to poll with once caught up', async () => {
    const full = await get('/api/data/changes/clients?limit=6').expect(200);
    expect(full.body.meta.hasMore).toBe(false);
    const first = await get('/api/data/changes/clients?limit=5').expect(200);
    expect(first.body.meta.hasMore).toBe(true);
    const poll = await get(
      `/api/data/changes/clients?cursor=${encodeURIComponent(full.body.meta.nextCursor)}`,
    ).expect(200);
    expect(poll.body).toEqual({
      data: [],
      meta: { limit: 100, nextCursor: full.body.meta.nextCursor, hasMore: false },
    });
  });

  it('gives an empty table a cursor from its start, which later sees the first rows', async () => {
    const empty = await get('/api/data/changes/clients?linkId=none').expect(200);
    expect(empty.body).toEqual({
      data: [],
      meta: { limit: 100, nextCursor: expect.any(String), hasMore: false },
    });
    const again = await get(
      `/api/data/changes/clients?linkId=none&cursor=${encodeURIComponent(empty.body.meta.nextCursor)}`,
    ).expect(200);
    expect(again.body.meta.nextCursor).toBe(empty.body.meta.nextCursor);
  });

  it('filters the client feed by linkId', async () => {
    const { rows } = await drain('/api/data/changes/clients?linkId=l-a', 2);
    expect(rows.map((row) => row.id)).toEqual(
      CLIENTS.filter((c) => c.linkId === 'l-a')
        .sort(byUpdatedAtThenId)
        .map((c) => c.id),
    );
    const nul = await get('/api/data/changes/clients?linkId=l-a%00').expect(200);
    expect(nul.body.data).toEqual([]);
  });

  it('stamps every insert and update with the time of the write, and serves each change again', async () => {
    const { cursor } = await drain('/api/data/changes/clients', 100);
    const before = Date.now();
    await t.dataSource.query(
      `INSERT INTO clients (id, link_id, status, updated_at) VALUES ('new-1', 'l-a', 'new', '2000-01-01')`,
    );
    await t.dataSource.query(`UPDATE clients SET is_deleted = true WHERE id = 'a'`);
    await pause(300); // past the safe point's margin
    const { rows } = await drain('/api/data/changes/clients', 100, cursor);
    expect(rows.map((row) => row.id)).toEqual(['new-1', 'a']);
    const stamps = rows.map((row) => Date.parse(row.updatedAt as string));
    for (const stamp of stamps) expect(stamp).toBeGreaterThanOrEqual(before - 1000);
    expect(rows[1]).toMatchObject({ id: 'a', isDeleted: true });
  });

  describe('no gaps', () => {
    let writer: PgClient;
    beforeEach(async () => {
      writer = testClient({ connectionString: process.env.DATABASE_URL });
      await writer.connect();
    });
    afterEach(() => writer.end());

    it('holds back changes committed after a change still in flight, then serves both', async () => {
      const { cursor } = await drain('/api/data/changes/clients', 100);
      await writer.query('BEGIN');
      await writer.query(`UPDATE clients SET status = 'connected' WHERE id = 'B'`);
      await pause(50);
      await t.dataSource.query(`UPDATE clients SET status = 'new' WHERE id = 'b'`); // commits
      await pause(300);
      const held = await drain('/api/data/changes/clients', 100, cursor);
      expect(held.rows).toEqual([]);
      expect(held.cursor).toBe(cursor);
      // What tells a held feed from a caught-up one: the safe point trails the clock.
      expect(await safePointLag()).toBeGreaterThan(0.3);
      await writer.query('COMMIT');
      await pause(300);
      const { rows } = await drain('/api/data/changes/clients', 100, held.cursor);
      expect(rows.map((row) => row.id)).toEqual(['B', 'b']);
      expect(await safePointLag()).toBeLessThan(0.3);
    });

    it('is not held back by a transaction that only reads (a backup)', async () => {
      const { cursor } = await drain('/api/data/changes/links', 100);
      await writer.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
      await writer.query('SELECT count(*) FROM clients');
      await t.dataSource.query(`UPDATE links SET created_at = created_at WHERE id = 'l-a'`);
      await pause(300);
      const { rows } = await drain('/api/data/changes/links', 100, cursor);
      expect(rows.map((row) => row.id)).toEqual(['l-a']);
      await writer.query('COMMIT');
    });

    it('is not held back by a transaction that writes only other tables (a report)', async () => {
      const { cursor } = await drain('/api/data/changes/links', 100);
      await writer.query('BEGIN');
      // Each takes a transaction id; none can stamp a row of the feeds.
      await writer.query('CREATE TEMP TABLE report AS SELECT * FROM clients');
      await writer.query(`SELECT FROM clients WHERE id = 'a' FOR UPDATE`);
      await pause(50);
      await t.dataSource.query(`UPDATE links SET created_at = created_at WHERE id = 'l-b'`);
      await pause(300);
      const { rows } = await drain('/api/data/changes/links', 100, cursor);
      expect(rows.map((row) => row.id)).toEqual(['l-b']);
      await writer.query('COMMIT');
    });

    it('is not held back by a temporary table named like a feed table', async () => {
      const { cursor } = await drain('/api/data/changes/links', 100);
      await writer.query('CREATE TEMP TABLE links (x int)');
      await writer.query('BEGIN');
      await writer.query('INSERT INTO links VALUES (1)');
      await pause(50);
      await t.dataSource.query(`UPDATE links SET created_at = created_at WHERE id = 'l-a'`);
      await pause(300);
      const { rows } = await drain('/api/data/changes/links', 100, cursor);
      expect(rows.map((row) => row.id)).toEqual(['l-a']);
      await writer.query('COMMIT');
    });

    it('is held back by an open writer of the links table itself', async () => {
      const { cursor } = await drain('/api/data/changes/links', 100);
      await writer.query('BEGIN');
      await writer.query(`UPDATE links SET created_at = created_at WHERE id = 'L-a'`);
      await pause(50);
      await t.dataSource.query(`UPDATE links SET created_at = created_at WHERE id = 'l-b'`);
      await pause(300);
      expect((await drain('/api/data/changes/links', 100, cursor)).rows).toEqual([]);
      await writer.query('COMMIT');
      await pause(300);
      const { rows } = await drain('/api/data/changes/links', 100, cursor);
      expect(rows.map((row) => row.id)).toEqual(['L-a', 'l-b']);
    });
  });

  // Cursors issued before feed scopes named their filters (signed with the suite's secret, after
  // client-0 on 2026-01-01): they still continue their walks, and only on their own feed and filter.
  describe('cursors of the first format', () => {
    const FIRST_FORMAT = {
      links:
        'WyIyMDI2LTAxLTAxVDAwOjAwOjAwLjAwMDAwMFoiLCJjbGllbnQtMCIsIm5oM2dXTnlKM3Y4Il0._17zteYFbIi027jHhanYVA',
      clients:
        'WyIyMDI2LTAxLTAxVDAwOjAwOjAwLjAwMDAwMFoiLCJjbGllbnQtMCIsIllxR0REYUlId2pNIl0.xp9Bi4OnCefXo-rjBxs__A',
      linkA:
        'WyIyMDI2LTAxLTAxVDAwOjAwOjAwLjAwMDAwMFoiLCJjbGllbnQtMCIsIjFqbnZxWW5NekJNIl0.O1EPwOEs3uXXWcG6EAwFzQ',
    };
    it.each([
      ['/api/data/changes/links', FIRST_FORMAT.links],
      ['/api/data/changes/clients', FIRST_FORMAT.clients],
      ['/api/data/changes/clients?linkId=link-a', FIRST_FORMAT.linkA],
    ])('%s continues after its position', async (path, cursor) => {
      const sep = path.includes('?') ? '&' : '?';
      const res = await get(`${path}${sep}cursor=${cursor}`).expect(200);
      expect(res.body.meta.nextCursor).toEqual(expect.any(String));
    });

    it.each([
      ['/api/data/changes/clients', FIRST_FORMAT.links],
      ['/api/data/changes/clients?linkId=link-b', FIRST_FORMAT.linkA],
      ['/api/data/changes/links', FIRST_FORMAT.clients],
    ])('%s refuses one of another feed or filter', async (path, cursor) => {
      const sep = path.includes('?') ? '&' : '?';
      await get(`${path}${sep}cursor=${cursor}`).expect(400);
    });
  });

  describe('400s', () => {
    const expect400 = async (url: string, errors: { name: string; reason: string }[]) => {
      const res = await get(url).expect(400);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.body).toMatchObject({ status: 400, detail: 'Invalid query parameters', errors });
    };
    const OTHER = {
      name: 'cursor',
      reason:
        'was issued for another endpoint, other filters or another key; repeat the ones it came with',
    };
    const cursorOf = async (url: string) =>
      encodeURIComponent((await get(url).expect(200)).body.meta.nextCursor);

    it('names every bad parameter at once', async () => {
      await expect400('/api/data/changes/clients?limit=1001&status=new&linkId=&cursor=x&limit=2', [
        { name: 'limit', reason: 'must be given only once' },
        { name: 'status', reason: 'is not a known parameter' },
        { name: 'linkId', reason: 'must be a non-empty string of at most 255 characters' },
        { name: 'cursor', reason: 'is not a cursor issued by this service' },
      ]);
      await expect400('/api/data/changes/links?limit=0&linkId=l-a&page=1', [
        { name: 'limit', reason: 'must be an integer from 1 to 1000' },
        { name: 'linkId', reason: 'is not a known parameter' },
        { name: 'page', reason: 'is not a known parameter' },
      ]);
      await expect400('/api/data/changes/clients?linkId=l-%FF', [
        { name: 'linkId', reason: 'must be valid percent-encoded UTF-8' },
      ]);
    });

    it('rejects a cursor from another feed, another filter or the client list', async () => {
      const links = await cursorOf('/api/data/changes/links?limit=1');
      const clients = await cursorOf('/api/data/changes/clients?limit=1');
      const ofLink = await cursorOf('/api/data/changes/clients?limit=1&linkId=l-a');
      const list = await cursorOf('/api/data/clients?limit=1');
      await expect400(`/api/data/changes/clients?cursor=${links}`, [OTHER]);
      await expect400(`/api/data/changes/links?cursor=${clients}`, [OTHER]);
      await expect400(`/api/data/changes/clients?cursor=${ofLink}`, [OTHER]);
      await expect400(`/api/data/changes/clients?linkId=l-b&cursor=${ofLink}`, [OTHER]);
      await expect400(`/api/data/changes/clients?cursor=${list}`, [OTHER]);
      await get(`/api/data/changes/clients?linkId=l-a&cursor=${ofLink}`).expect(200);
    });

    it('rejects a tampered or forged cursor', async () => {
      const cursor = decodeURIComponent(await cursorOf('/api/data/changes/clients?limit=1'));
      const [payload, mac] = cursor.split('.');
      const fields = JSON.parse(Buffer.from(payload, 'base64url').toString());
      fields[0] = '1999-01-01T00:00:00.000000Z';
      const forged = `${Buffer.from(JSON.stringify(fields)).toString('base64url')}.${mac}`;
      const bad = { name: 'cursor', reason: 'is not a cursor issued by this service' };
      await expect400(`/api/data/changes/clients?cursor=${forged}`, [bad]);
      await expect400(`/api/data/changes/clients?cursor=${payload}.AAAAAAAAAAAAAAAAAAAAAA`, [bad]);
    });
  });

  it('needs a key, and answers other methods with 405', async () => {
    const server = t.app.getHttpServer();
    await request(server).get('/api/data/changes/links').expect(401);
    const res = await request(server).post('/api/data/changes/clients').set(AUTH).expect(405);
    expect(res.headers.allow).toBe('GET, HEAD');
  });
});
