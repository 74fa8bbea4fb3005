import request from 'supertest';
import { AUTH, createTestApp, TestApp } from '../support/create-app';
import { insertClients, insertLinks } from '../support/fixtures';

// Far longer than any run takes between two requests: the test moves the clock past it.
const TTL_MS = 3_600_000;

// docs/api.md, Endpoints: a total may be up to COUNT_CACHE_TTL_MS old; the rows are always fresh.
describe('List Clients totals with COUNT_CACHE_TTL_MS', () => {
  let t: TestApp;
  // The app's clock runs on, shifted by what the test adds, so no assertion waits on real time.
  let shift = 0;
  const realNow = Date.now.bind(Date);
  const list = async (query = '') =>
    (await request(t.app.getHttpServer()).get(`/api/data/clients?${query}`).set(AUTH).expect(200))
      .body;

  beforeAll(async () => {
    jest.spyOn(Date, 'now').mockImplementation(() => realNow() + shift);
    t = await createTestApp({ env: { COUNT_CACHE_TTL_MS: String(TTL_MS) } });
    await insertLinks(t.dataSource, [{ id: 'link-1' }]);
    await insertClients(t.dataSource, [
      { id: 'c-1', linkId: 'link-1', status: 'new' },
      { id: 'c-2', linkId: 'link-1', status: 'new' },
    ]);
  });
  afterAll(async () => {
    await t.close();
    jest.restoreAllMocks();
  });

  // Full pages (limit=1): a page holding the last row tells the exact total without a count.
  it('serves a cached total within the TTL, with fresh rows, and recounts after it', async () => {
    expect((await list('limit=1')).meta.total).toBe(2);
    await insertClients(t.dataSource, [
      { id: 'c-0', linkId: 'link-1', status: 'new', createdAt: '2000-01-01T00:00:00Z' },
    ]);
    const cached = await list('limit=1');
    expect(cached.meta.total).toBe(2);
    expect(cached.data.map((c: { id: string }) => c.id)).toEqual(['c-0']);
    shift += TTL_MS;
    expect((await list('limit=1')).meta.total).toBe(3);
  });

  it('counts a page that holds the last row from its rows, cache or not', async () => {
    await insertClients(t.dataSource, [{ id: 'c-3', linkId: 'link-1', status: 'new' }]);
    expect((await list('limit=1')).meta.total).toBe(3);
    expect((await list('limit=1&page=4')).meta.total).toBe(4);
    expect((await list()).meta.total).toBe(4);
  });

  it('caches each filter combination separately', async () => {
    await insertClients(t.dataSource, [{ id: 'c-4', linkId: 'link-1', status: 'connected' }]);
    expect((await list('status=new&limit=1')).meta.total).toBe(4);
    expect((await list('status=connected&limit=1')).meta.total).toBe(1);
    expect((await list('linkId=link-1&limit=1')).meta.total).toBe(5);
    expect((await list('limit=1')).meta.total).toBe(3);
  });
});

describe('List Clients totals with COUNT_CACHE_TTL_MS=0', () => {
  let t: TestApp;

  beforeAll(async () => {
    process.env.DATABASE_URL += '_uncached';
    t = await createTestApp({ env: { COUNT_CACHE_TTL_MS: '0' } });
    await insertLinks(t.dataSource, [{ id: 'link-1' }]);
  });
  afterAll(() => t.close());

  it('counts on every request', async () => {
    for (let i = 1; i <= 3; i++) {
      await insertClients(t.dataSource, [{ id: `c-${i}`, linkId: 'link-1', status: 'new' }]);
      const res = await request(t.app.getHttpServer())
        .get('/api/data/clients')
        .set(AUTH)
        .expect(200);
      expect(res.body.meta.total).toBe(i);
    }
  });
});
