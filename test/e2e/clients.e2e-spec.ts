import request from 'supertest';
import { AUTH, createTestApp, TestApp } from '../support/create-app';
import { ClientRow, insertClients, insertLinks } from '../support/fixtures';
import { filterCombinations, filterSamples, passesFilters } from '../support/client-filters';
import { asClientJson, byCreatedAtThenId } from '../support/expected';
import { expectProblem } from '../support/problem';

const at = (minute: number, micros = 0) =>
  `2026-03-01T10:${String(minute).padStart(2, '0')}:00.${String(micros).padStart(6, '0')}Z`;

const LINKS = ['link-a', 'link-b', "link-'c' ✓"].map((id) => ({
  id,
  createdAt: at(0),
  updatedAt: at(0),
}));

// Ties on createdAt (minutes 2 and 5) must be broken by id in byte order: '10' < '9' < 'B' < 'a' < 'ä'.
const CLIENTS: ClientRow[] = [
  { id: 'c-1', linkId: 'link-a', status: 'new', createdAt: at(1) },
  { id: 'a', linkId: 'link-a', status: 'connected', isDeleted: true, createdAt: at(2) },
  { id: 'B', linkId: 'link-b', status: 'connected', createdAt: at(2) },
  { id: '10', linkId: 'link-b', status: 'new', isDeleted: true, createdAt: at(2) },
  { id: '9', linkId: 'link-a', status: 'connected', createdAt: at(2) },
  { id: 'ä', linkId: 'link-b', status: 'new', createdAt: at(2) },
  { id: 'c-suspended', linkId: 'link-b', status: 'suspended', createdAt: at(3) },
  {
    id: 'c-deleted-other',
    linkId: 'link-a',
    status: 'archived',
    isDeleted: true,
    createdAt: at(4),
  },
  // Microseconds order these two although their JSON timestamps are equal.
  { id: 'z-earlier', linkId: "link-'c' ✓", status: 'new', createdAt: at(5, 1) },
  { id: 'a-later', linkId: "link-'c' ✓", status: 'connected', createdAt: at(5, 2) },
  { id: 'c-11', linkId: 'link-a', status: 'new', isDeleted: true, createdAt: at(6) },
  { id: 'c-12', linkId: 'link-a', status: 'connected', createdAt: at(7) },
].map((client, index) => ({ ...client, updatedAt: at(20, index) }));

const ORDERED = [...CLIENTS].sort(byCreatedAtThenId);

describe('Clients', () => {
  let t: TestApp;
  const get = (url: string) => request(t.app.getHttpServer()).get(url).set(AUTH);

  beforeAll(async () => {
    t = await createTestApp();
    await insertLinks(t.dataSource, LINKS);
    await insertClients(t.dataSource, CLIENTS);
  });
  afterAll(() => t.close());

  describe('GET /api/data/clients', () => {
    it('lists every client, deleted ones included, by createdAt then id, with default paging', async () => {
      const res = await get('/api/data/clients')
        .expect(200)
        .expect('Content-Type', /^application\/json/);
      expect(res.body).toEqual({
        data: ORDERED.map(asClientJson),
        meta: { page: 1, limit: 100, total: CLIENTS.length, totalPages: 1, nextCursor: null },
      });
      expect(res.body.data.slice(1, 6).map((c: { id: string }) => c.id)).toEqual([
        '10',
        '9',
        'B',
        'a',
        'ä',
      ]);
      expect(res.body.data.slice(8, 10).map((c: { id: string }) => c.id)).toEqual([
        'z-earlier',
        'a-later',
      ]);
    });

    it('emits exactly the contract fields, in camelCase', async () => {
      const res = await get('/api/data/clients?limit=1').expect(200);
      expect(Object.keys(res.body.data[0])).toEqual([
        'id',
        'linkId',
        'isDeleted',
        'status',
        'createdAt',
        'updatedAt',
      ]);
      expect(Object.keys(res.body.meta)).toEqual([
        'page',
        'limit',
        'total',
        'totalPages',
        'nextCursor',
      ]);
    });

    const combinations = filterCombinations(
      filterSamples(['link-a', 'link-b', "link-'c' ✓", 'no-such-link'], ['2025-01-01T00:00:00Z']),
    );

    it.each(combinations)('filters with AND: %o', async (filters) => {
      const query = new URLSearchParams(
        Object.entries(filters).map(([name, value]): [string, string] => [name, String(value)]),
      );
      const expected = ORDERED.filter((c) => passesFilters(asClientJson(c), filters));
      const res = await get(`/api/data/clients?${query}`).expect(200);
      expect(res.body).toEqual({
        data: expected.map(asClientJson),
        meta: {
          page: 1,
          limit: 100,
          total: expected.length,
          totalPages: Math.ceil(expected.length / 100),
          nextCursor: null,
        },
      });
    });

    it('isDeleted=false returns only clients that are not deleted', async () => {
      const res = await get('/api/data/clients?isDeleted=false').expect(200);
      expect(res.body.data.length).toBeGreaterThan(0);
      expect(res.body.data.every((c: { isDeleted: boolean }) => c.isDeleted === false)).toBe(true);
      expect(res.body.meta.total).toBe(CLIENTS.filter((c) => !c.isDeleted).length);
    });

    it('pages through the whole list with exact meta', async () => {
      const seen: string[] = [];
      for (let page = 1; page <= 5; page++) {
        const res = await get(`/api/data/clients?page=${page}&limit=3`).expect(200);
        expect(res.body.meta).toEqual({
          page,
          limit: 3,
          total: 12,
          totalPages: 4,
          nextCursor: page < 4 ? expect.any(String) : null,
        });
        expect(res.body.data).toEqual(ORDERED.slice((page - 1) * 3, page * 3).map(asClientJson));
        seen.push(...res.body.data.map((c: { id: string }) => c.id));
      }
      expect(seen).toEqual(ORDERED.map((c) => c.id));
    });

    it('pages filtered results, totalPages rounding up', async () => {
      const connected = ORDERED.filter((c) => c.status === 'connected');
      const res = await get('/api/data/clients?status=connected&limit=2&page=3').expect(200);
      expect(res.body).toEqual({
        data: connected.slice(4, 6).map(asClientJson),
        meta: {
          page: 3,
          limit: 2,
          total: connected.length,
          totalPages: Math.ceil(connected.length / 2),
          nextCursor: null,
        },
      });
    });

    it.each([
      ['a page past the end', 'page=99&limit=5', { page: 99, limit: 5, total: 12, totalPages: 3 }],
      [
        'the largest page',
        'page=2147483647&limit=1000',
        { page: 2147483647, limit: 1000, total: 12, totalPages: 1 },
      ],
      ['an unknown link', 'linkId=nope', { page: 1, limit: 100, total: 0, totalPages: 0 }],
      ['a link id with NUL', 'linkId=link-a%00', { page: 1, limit: 100, total: 0, totalPages: 0 }],
    ])('answers %s with an empty page and exact meta', async (_case, query, meta) => {
      const res = await get(`/api/data/clients?${query}`).expect(200);
      expect(res.body).toEqual({ data: [], meta: { ...meta, nextCursor: null } });
    });

    it('reads page and limit as decimal, leading zeros included', async () => {
      const res = await get('/api/data/clients?page=002&limit=0005').expect(200);
      expect(res.body.meta).toEqual({
        page: 2,
        limit: 5,
        total: 12,
        totalPages: 3,
        nextCursor: expect.any(String),
      });
      expect(res.body.data).toEqual(ORDERED.slice(5, 10).map(asClientJson));
    });

    it('accepts the limits of the ranges', async () => {
      await get('/api/data/clients?limit=1000').expect(200);
      const res = await get('/api/data/clients?limit=1').expect(200);
      expect(res.body.meta.totalPages).toBe(12);
    });

    it('decodes the query as a form: + is a space, %2B is a plus', async () => {
      await insertLinks(t.dataSource, [{ id: 'link a+b' }]);
      await insertClients(t.dataSource, [{ id: 'plus-space', linkId: 'link a+b', status: 'new' }]);
      try {
        const res = await get('/api/data/clients?linkId=link+a%2Bb').expect(200);
        expect(res.body.data.map((c: { id: string }) => c.id)).toEqual(['plus-space']);
      } finally {
        await t.dataSource.query(`DELETE FROM clients WHERE id = 'plus-space'`);
        await t.dataSource.query(`DELETE FROM links WHERE id = 'link a+b'`);
      }
    });

    it('matches a 255-character link id exactly', async () => {
      const res = await get(`/api/data/clients?linkId=${'x'.repeat(255)}`).expect(200);
      expect(res.body.meta.total).toBe(0);
    });

    it('returns statuses other than new and connected as stored', async () => {
      const res = await get('/api/data/clients?linkId=link-b').expect(200);
      expect(res.body.data.map((c: { status: string }) => c.status)).toContain('suspended');
    });

    it('answers HEAD like GET, without a body', async () => {
      const res = await request(t.app.getHttpServer())
        .head('/api/data/clients')
        .set(AUTH)
        .expect(200);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.text).toBeUndefined();
    });
  });

  describe('GET /api/data/clients/{id}', () => {
    it('returns the client itself, not wrapped', async () => {
      const res = await get('/api/data/clients/c-1')
        .expect(200)
        .expect('Content-Type', /^application\/json/);
      expect(res.body).toEqual(asClientJson(CLIENTS[0]));
    });

    it('returns soft-deleted clients too', async () => {
      const res = await get('/api/data/clients/c-deleted-other').expect(200);
      expect(res.body).toEqual(
        asClientJson(CLIENTS.find((c) => c.id === 'c-deleted-other') as ClientRow),
      );
      expect(res.body.isDeleted).toBe(true);
    });

    const awkwardIds = [
      "it's",
      'with space',
      'ünïcødé ✓ 日本',
      '😀',
      "'; DROP TABLE clients; --",
      'a/b',
      'a+b',
      '%',
      '\\',
      '"quoted"',
      'x'.repeat(255),
      'y'.repeat(300),
    ];

    it.each(awkwardIds)('finds a client whose id is %j', async (id) => {
      await insertClients(t.dataSource, [
        { id, linkId: 'link-a', status: 'new', createdAt: at(30), updatedAt: at(31) },
      ]);
      try {
        const res = await get(`/api/data/clients/${encodeURIComponent(id)}`).expect(200);
        expect(res.body).toEqual(
          asClientJson({
            id,
            linkId: 'link-a',
            status: 'new',
            createdAt: at(30),
            updatedAt: at(31),
          }),
        );
      } finally {
        await t.dataSource.query('DELETE FROM clients WHERE id = $1', [id]);
      }
    });

    it.each([...awkwardIds, 'nope', 'C-1', 'c-1 ', '\u0000', 'c-1\u0000'])(
      'answers 404 problem+json for the unknown id %j',
      async (id) => {
        expectProblem(await get(`/api/data/clients/${encodeURIComponent(id)}`), {
          status: 404,
          title: 'Not Found',
          detail: 'No client has this id',
          instance: `/api/data/clients/${encodeURIComponent(id)}`,
        });
      },
    );

    // Get Client takes no parameters: any query string is refused before the id is looked up.
    it.each(['c-1?x=1', 'c-1?limit=1', 'nope?x=1', 'c-1?x', 'c-1?isDeleted=false'])(
      'answers GET %s with a 400 naming the parameter',
      async (path) => {
        const res = await get(`/api/data/clients/${path}`);
        const [id, query] = path.split('?');
        const name = new URLSearchParams(query).keys().next().value;
        expectProblem(res, {
          status: 400,
          title: 'Bad Request',
          detail: 'Invalid query parameters',
          instance: `/api/data/clients/${id}`,
          errors: [{ name, reason: 'is not a known parameter' }],
        });
      },
    );

    it('answers a HEAD for an unknown id with 404', async () => {
      await request(t.app.getHttpServer()).head('/api/data/clients/nope').set(AUTH).expect(404);
    });
  });
});
