import request from 'supertest';
import { AUTH, createTestApp, TestApp } from '../support/create-app';
import { clearTables, insertLinks, LinkRow } from '../support/fixtures';
import { asLinkJson, byCreatedAtThenId } from '../support/expected';

const LINKS: LinkRow[] = [
  {
    id: 'link-late',
    createdAt: '2026-04-01T00:00:00.000000Z',
    updatedAt: '2026-04-02T00:00:00.000000Z',
  },
  { id: 'b', createdAt: '2026-01-01T00:00:00.000000Z', updatedAt: '2026-01-05T12:30:45.123000Z' },
  { id: 'B', createdAt: '2026-01-01T00:00:00.000000Z', updatedAt: '2026-01-01T00:00:00.000000Z' },
  {
    id: "it's ✓",
    createdAt: '2025-12-31T23:59:59.999000Z',
    updatedAt: '2026-01-01T00:00:00.000000Z',
  },
  { id: 'a', createdAt: '2026-01-01T00:00:00.000001Z', updatedAt: '2026-01-01T00:00:00.000000Z' },
];

describe('Links', () => {
  let t: TestApp;
  const get = (url: string) => request(t.app.getHttpServer()).get(url).set(AUTH);

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  describe('GET /api/data/links', () => {
    it('answers an empty table with an empty list', async () => {
      await clearTables(t.dataSource);
      const res = await get('/api/data/links').expect(200);
      expect(res.body).toEqual({ data: [], meta: { total: 0 } });
    });

    it('lists every link by createdAt then id, with the exact total', async () => {
      await insertLinks(t.dataSource, LINKS);
      const res = await get('/api/data/links')
        .expect(200)
        .expect('Content-Type', /^application\/json/);
      expect(res.body).toEqual({
        data: [...LINKS].sort(byCreatedAtThenId).map(asLinkJson),
        meta: { total: 5 },
      });
      expect(res.body.data.map((l: { id: string }) => l.id)).toEqual([
        "it's ✓",
        'B',
        'b',
        'a',
        'link-late',
      ]);
    });

    it('is not paged: every link comes back', async () => {
      const many = Array.from({ length: 250 }, (_, i) => ({
        id: `bulk-${String(i).padStart(3, '0')}`,
      }));
      await insertLinks(t.dataSource, many);
      const res = await get('/api/data/links').expect(200);
      expect(res.body.meta.total).toBe(255);
      expect(res.body.data).toHaveLength(255);
      await t.dataSource.query(`DELETE FROM links WHERE id LIKE 'bulk-%'`);
    });

    it.each(['page=1', 'limit=10', 'foo', 'x=1&y=2'])(
      'rejects any query parameter (?%s)',
      async (query) => {
        const res = await get(`/api/data/links?${query}`)
          .expect(400)
          .expect('Content-Type', /^application\/problem\+json/);
        const names = [...new URLSearchParams(query).keys()];
        expect(res.body.errors).toEqual(
          names.map((name) => ({ name, reason: 'is not a known parameter' })),
        );
      },
    );
  });

  describe('GET /api/data/links/{id}', () => {
    it('returns the link itself, not wrapped', async () => {
      const res = await get('/api/data/links/b').expect(200);
      expect(res.body).toEqual({
        id: 'b',
        createdAt: '2026-01-01T00:00:00.000Z',
        updatedAt: '2026-01-05T12:30:45.123Z',
      });
    });

    it('finds an id with a quote, a space and unicode', async () => {
      const res = await get(`/api/data/links/${encodeURIComponent("it's ✓")}`).expect(200);
      expect(res.body.id).toBe("it's ✓");
    });

    it.each(['nope', 'A', "b' OR '1'='1", '%', 'z'.repeat(255), '\u0000'])(
      'answers 404 for %j',
      async (id) => {
        const res = await get(`/api/data/links/${encodeURIComponent(id)}`).expect(404);
        expect(res.body).toMatchObject({
          status: 404,
          title: 'Not Found',
          detail: 'No link has this id',
        });
      },
    );

    it('answers a query string with 400 before looking the id up (even for an unknown id)', async () => {
      for (const id of ['b', 'nope']) {
        const res = await get(`/api/data/links/${id}?x=1`).expect(400);
        expect(res.body.errors).toEqual([{ name: 'x', reason: 'is not a known parameter' }]);
      }
    });
  });
});
