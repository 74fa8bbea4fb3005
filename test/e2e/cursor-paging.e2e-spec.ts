import request from 'supertest';
import { AUTH, createTestApp, TestApp } from '../support/create-app';
import { ClientRow, insertClients, insertLinks } from '../support/fixtures';
import { asClientJson, byCreatedAtThenId } from '../support/expected';

// 60 clients over two links, with runs of equal createdAt so pages end inside a tie.
const CLIENTS: ClientRow[] = Array.from({ length: 60 }, (_, i) => ({
  id: `c-${String((i * 37) % 60).padStart(2, '0')}`,
  linkId: i % 3 === 0 ? 'link-b' : 'link-a',
  status: ['new', 'connected', 'other'][i % 3 === 1 ? 0 : i % 4 === 0 ? 2 : 1],
  isDeleted: i % 5 === 0,
  createdAt: `2026-05-01T00:00:${String(Math.floor(i / 4)).padStart(2, '0')}.000${i % 2}00Z`,
  updatedAt: '2026-05-02T00:00:00.000000Z',
}));
const ORDERED = [...CLIENTS].sort(byCreatedAtThenId);

describe('Cursor paging (docs/api.md, Endpoints)', () => {
  let t: TestApp;
  const get = (url: string) => request(t.app.getHttpServer()).get(url).set(AUTH);

  beforeAll(async () => {
    t = await createTestApp();
    await insertLinks(t.dataSource, [{ id: 'link-a' }, { id: 'link-b' }]);
    await insertClients(t.dataSource, CLIENTS);
  });
  afterAll(() => t.close());

  /** Follows nextCursor from the first page until it is null; returns every row seen. */
  async function walk(filters: string, limits: number[]) {
    const rows: { id: string }[] = [];
    let res = await get(`/api/data/clients?${filters}&limit=${limits[0]}`).expect(200);
    rows.push(...res.body.data);
    for (let step = 1; res.body.meta.nextCursor !== null; step++) {
      expect(step).toBeLessThan(200);
      const limit = limits[step % limits.length];
      const cursor = encodeURIComponent(res.body.meta.nextCursor);
      res = await get(`/api/data/clients?${filters}&limit=${limit}&cursor=${cursor}`).expect(200);
      expect(Object.keys(res.body.meta)).toEqual(['limit', 'nextCursor']);
      expect(res.body.meta.limit).toBe(limit);
      rows.push(...res.body.data);
    }
    return rows;
  }

  const filterSets = [
    '',
    'status=connected',
    'isDeleted=false',
    'linkId=link-a&isDeleted=true',
    'linkId=link-b&status=new&isDeleted=false',
  ];

  it.each(filterSets)('walks every matching row exactly once, in order (%j)', async (filters) => {
    const params = new URLSearchParams(filters);
    const expected = ORDERED.filter(
      (c) =>
        (!params.has('linkId') || c.linkId === params.get('linkId')) &&
        (!params.has('status') || c.status === params.get('status')) &&
        (!params.has('isDeleted') || String(c.isDeleted) === params.get('isDeleted')),
    );
    expect(await walk(filters, [7])).toEqual(expected.map(asClientJson));
    expect(await walk(filters, [1, 4, 1000, 2])).toEqual(expected.map(asClientJson));
  });

  it('continues a page-numbered walk: page 2 then its cursor gives page 3', async () => {
    const page2 = await get('/api/data/clients?page=2&limit=10').expect(200);
    const cursor = encodeURIComponent(page2.body.meta.nextCursor);
    const next = await get(`/api/data/clients?limit=10&cursor=${cursor}`).expect(200);
    const page3 = await get('/api/data/clients?page=3&limit=10').expect(200);
    expect(next.body.data).toEqual(page3.body.data);
    expect(next.body.meta.nextCursor).toEqual(expect.any(String));
  });

  it('gives nextCursor null on the last page, and an empty page after the last row', async () => {
    const last = await get('/api/data/clients?page=6&limit=10').expect(200);
    expect(last.body.data).toHaveLength(10);
    expect(last.body.meta.nextCursor).toBeNull();
    const beforeLast = await get('/api/data/clients?page=5&limit=10').expect(200);
    const cursor = encodeURIComponent(beforeLast.body.meta.nextCursor);
    const res = await get(`/api/data/clients?limit=10&cursor=${cursor}`).expect(200);
    expect(res.body).toEqual({ data: last.body.data, meta: { limit: 10, nextCursor: null } });
  });

  it('neither skips nor repeats older rows while newer ones are added', async () => {
    const seen: string[] = [];
    let res = await get('/api/data/clients?limit=9').expect(200);
    seen.push(...res.body.data.map((c: { id: string }) => c.id));
    let added = 0;
    while (res.body.meta.nextCursor !== null) {
      if (added < 5) {
        await insertClients(t.dataSource, [
          {
            id: `late-${added}`,
            linkId: 'link-a',
            status: 'new',
            createdAt: `2026-06-0${added + 1}T00:00:00Z`,
          },
        ]);
        added++;
      }
      const cursor = encodeURIComponent(res.body.meta.nextCursor);
      res = await get(`/api/data/clients?limit=9&cursor=${cursor}`).expect(200);
      seen.push(...res.body.data.map((c: { id: string }) => c.id));
    }
    expect(seen).toEqual([
      ...ORDERED.map((c) => c.id),
      'late-0',
      'late-1',
      'late-2',
      'late-3',
      'late-4',
    ]);
    await t.dataSource.query(`DELETE FROM clients WHERE id LIKE 'late-%'`);
  });

  // Cursors as issued, signed with the suite's CURSOR_SECRET after the row c-52 (createdAt
  // 2026-05-01T00:00:04.000000Z): they must keep verifying in every later release.
  describe('cursors issued by earlier releases', () => {
    const pinned = [
      // Today's scope names the filters given, so a filter added later changes none of these.
      [
        '',
        'WyIyMDI2LTA1LTAxVDAwOjAwOjA0LjAwMDAwMFoiLCJjLTUyIiwiYjZ3R3VoT0NVZ1kiXQ.9oHP5vdRLA6ORAwb124xHA',
      ],
      [
        'linkId=link-a',
        'WyIyMDI2LTA1LTAxVDAwOjAwOjA0LjAwMDAwMFoiLCJjLTUyIiwieHVzM09FRkU4enciXQ.D3dSzVlj4wUqWneb5U8swA',
      ],
      // The first format: linkId, isDeleted and status by position.
      [
        '',
        'WyIyMDI2LTA1LTAxVDAwOjAwOjA0LjAwMDAwMFoiLCJjLTUyIiwieV9oVDNxamI1VG8iXQ.0y5y12wI7SCdKeea8OLvug',
      ],
      [
        'linkId=link-a',
        'WyIyMDI2LTA1LTAxVDAwOjAwOjA0LjAwMDAwMFoiLCJjLTUyIiwielh3b0tYMUxSRkkiXQ.gvR350Co04fK306phS8KAw',
      ],
    ];

    it.each(pinned)('continue the walk with their filters (%j)', async (filters, cursor) => {
      const res = await get(`/api/data/clients?limit=3&${filters}&cursor=${cursor}`).expect(200);
      const after = ORDERED.findIndex((c) => c.id === 'c-52');
      const expected = ORDERED.slice(after + 1).filter((c) => !filters || c.linkId === 'link-a');
      expect(res.body.data).toEqual(expected.slice(0, 3).map(asClientJson));
    });

    it.each(pinned)('are refused with other filters (%j)', async (filters, cursor) => {
      const other = filters ? 'linkId=link-b' : 'status=new';
      const res = await get(`/api/data/clients?${other}&cursor=${cursor}`).expect(400);
      expect(res.body.errors).toEqual([
        {
          name: 'cursor',
          reason:
            'was issued for another endpoint, other filters or another key; repeat the ones it came with',
        },
      ]);
    });
  });

  describe('400s', () => {
    let cursor: string;
    beforeAll(async () => {
      const res = await get('/api/data/clients?status=connected&limit=5').expect(200);
      cursor = res.body.meta.nextCursor;
    });

    const expect400 = async (query: string, errors: { name: string; reason: string }[]) => {
      const res = await get(`/api/data/clients?${query}`).expect(400);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.body).toMatchObject({ status: 400, detail: 'Invalid query parameters', errors });
    };

    it('rejects cursor together with page, naming both', async () => {
      await expect400(`status=connected&page=1&cursor=${encodeURIComponent(cursor)}`, [
        { name: 'page', reason: 'cannot be combined with cursor' },
        { name: 'cursor', reason: 'cannot be combined with page' },
      ]);
    });

    it.each(['', 'x', 'not.a.cursor', 'eyJ9.eyJ9'])(
      'rejects the malformed cursor %j',
      async (bad) => {
        const res = await get(`/api/data/clients?status=connected&cursor=${bad}`).expect(400);
        expect(res.body.errors).toHaveLength(1);
        expect(res.body.errors[0].name).toBe('cursor');
      },
    );

    it('rejects a tampered cursor', async () => {
      const [payload, mac] = cursor.split('.');
      const fields = JSON.parse(Buffer.from(payload, 'base64url').toString());
      fields[1] = 'c-00';
      const forged = `${Buffer.from(JSON.stringify(fields)).toString('base64url')}.${mac}`;
      await expect400(`status=connected&cursor=${forged}`, [
        { name: 'cursor', reason: 'is not a cursor issued by this service' },
      ]);
    });

    it.each([
      '',
      'status=new',
      'status=connected&isDeleted=false',
      'status=connected&linkId=link-a',
    ])('rejects the cursor with other filters (%j)', async (filters) => {
      await expect400(`${filters}&cursor=${encodeURIComponent(cursor)}`, [
        {
          name: 'cursor',
          reason:
            'was issued for another endpoint, other filters or another key; repeat the ones it came with',
        },
      ]);
    });

    it('accepts the cursor with its own filters, in any order, with any limit', async () => {
      await get(
        `/api/data/clients?limit=1000&cursor=${encodeURIComponent(cursor)}&status=connected`,
      ).expect(200);
    });

    describe('one 400 naming the cursor with every other offending parameter', () => {
      const MALFORMED = { name: 'cursor', reason: 'is not a cursor issued by this service' };
      const OTHER = {
        name: 'cursor',
        reason:
          'was issued for another endpoint, other filters or another key; repeat the ones it came with',
      };
      const UNKNOWN = (name: string) => ({ name, reason: 'is not a known parameter' });

      it('an unknown parameter and a malformed cursor', async () => {
        await expect400('status=connected&bogus=1&cursor=x.y', [UNKNOWN('bogus'), MALFORMED]);
      });

      it('an unknown parameter and a cursor for other filters', async () => {
        const c = encodeURIComponent(cursor);
        await expect400(`satus=connected&cursor=${c}`, [UNKNOWN('satus'), OTHER]);
      });

      it('an invalid limit, a bracket name and a tampered cursor', async () => {
        const tampered = `${cursor.slice(0, -2)}${cursor.endsWith('AA') ? 'BB' : 'AA'}`;
        await expect400(`status=connected&limit=0&status[]=new&cursor=${tampered}`, [
          { name: 'limit', reason: 'must be an integer from 1 to 1000' },
          UNKNOWN('status[]'),
          MALFORMED,
        ]);
      });

      it('an invalid filter value and a cursor issued by a change feed', async () => {
        const feed = await get('/api/data/changes/clients?limit=1').expect(200);
        const c = encodeURIComponent(feed.body.meta.nextCursor);
        await expect400(`status=connected&isDeleted=yes&cursor=${c}`, [
          { name: 'isDeleted', reason: 'must be true or false' },
          OTHER,
        ]);
      });

      // The cursor came with status=connected alone: a filter the 400 already names may be
      // the one it came with, and then the cursor is not named as well.
      it.each([
        ['status=connected&status=connected', 'status', 'must be given only once'],
        ['status=new&status=connected', 'status', 'must be given only once'],
        ['status=connected&isDeleted=', 'isDeleted', 'must be true or false'],
        ['status=connected&linkId=a&linkId=b', 'linkId', 'must be given only once'],
      ])(
        'a filter in error that the cursor may have come with (%j)',
        async (filters, name, reason) => {
          const c = encodeURIComponent(cursor);
          await expect400(`${filters}&cursor=${c}`, [{ name, reason }]);
        },
      );

      it('a repeated filter none of whose values the cursor came with', async () => {
        const c = encodeURIComponent(cursor);
        await expect400(`status=new&status=pending&cursor=${c}`, [
          { name: 'status', reason: 'must be given only once' },
          OTHER,
        ]);
      });

      it('page with a forged cursor', async () => {
        await expect400('status=connected&page=2&cursor=eyJ9.eyJ9', [
          { name: 'page', reason: 'cannot be combined with cursor' },
          { name: 'cursor', reason: 'cannot be combined with page' },
        ]);
      });
    });

    it('rejects a repeated cursor', async () => {
      const c = encodeURIComponent(cursor);
      await expect400(`status=connected&cursor=${c}&cursor=${c}`, [
        { name: 'cursor', reason: 'must be given only once' },
      ]);
    });
  });
});
