import { Server } from 'node:http';
import request from 'supertest';
import { blockedQueries, lockClients, release } from '../support/clients-lock';
import { AUTH, createTestApp, TestApp } from '../support/create-app';
import { insertClients, insertLinks } from '../support/fixtures';

const SERVER_TIMING = /^db;dur=(\d+(?:\.\d)?), total;dur=(\d+(?:\.\d)?)$/;
const HELD_MS = 300;

/** The header's two durations, in milliseconds; fails the test on any other shape. */
function timings(header: string | undefined): { db: number; total: number } {
  const match = SERVER_TIMING.exec(header ?? '');
  if (!match) throw new Error(`Server-Timing is ${JSON.stringify(header)}`);
  return { db: Number(match[1]), total: Number(match[2]) };
}

describe('Server-Timing on data responses', () => {
  let t: TestApp;
  let server: Server;
  const get = (path: string) => request(server).get(path).set(AUTH);

  beforeAll(async () => {
    t = await createTestApp();
    server = t.app.getHttpServer() as Server;
    await insertLinks(t.dataSource, [{ id: 'link-1' }]);
    await insertClients(t.dataSource, [{ id: 'client-1', linkId: 'link-1', status: 'new' }]);
  });
  afterAll(() => t.close());

  it('gives every kind of data answer its database and total time', async () => {
    const paths = [
      '/api/data/clients?limit=1',
      '/api/data/clients/client-1',
      '/api/data/links',
      '/api/data/links/link-1',
      '/api/data/changes/clients?limit=1',
      '/api/data/clients/no-such-client',
    ];
    for (const path of paths) {
      const res = await get(path);
      const { db, total } = timings(res.headers['server-timing']);
      expect(db).toBeGreaterThan(0);
      expect(total).toBeGreaterThanOrEqual(db);
    }
  });

  it('leaves pages and probes without it', async () => {
    for (const path of ['/health/live', '/docs/openapi.json', '/no-such-page']) {
      expect((await request(server).get(path)).headers['server-timing']).toBeUndefined();
    }
  });

  // A read that waits on a lock is database time; another request's is not.
  it('counts the time a request waits on its database, and no other request’s', async () => {
    const lock = await lockClients(t.dataSource);
    try {
      const held = get('/api/data/clients?limit=1').then((res) => res);
      await blockedQueries(t.dataSource, 1);
      await new Promise((resolve) => setTimeout(resolve, HELD_MS));
      const meanwhile = await get('/api/data/links/link-1');
      await release(lock);

      const waited = timings((await held).headers['server-timing']);
      expect(waited.db).toBeGreaterThanOrEqual(HELD_MS);
      expect(waited.total).toBeGreaterThanOrEqual(waited.db);
      expect(timings(meanwhile.headers['server-timing']).db).toBeLessThan(HELD_MS);
    } finally {
      if (!lock.isReleased) await release(lock);
    }
  });
});

describe('Server-Timing with SERVER_TIMING=false', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await createTestApp({ env: { SERVER_TIMING: 'false' } });
  });
  afterAll(async () => {
    await t.close();
    delete process.env.SERVER_TIMING;
  });

  it('sends no Server-Timing header', async () => {
    const res = await request(t.app.getHttpServer()).get('/api/data/links').set(AUTH);
    expect(res.status).toBe(200);
    expect(res.headers['server-timing']).toBeUndefined();
  });
});
