import request from 'supertest';
import { ShutdownState } from '../../src/health/shutdown-state';
import { createTestApp, TestApp } from '../support/create-app';
import { TcpProxy } from '../support/tcp-proxy';

const HEALTH_TIMEOUT_MS = 500;
const databaseUp = { status: 'up', responseTime: expect.any(Number) };

// The app reaches its database through a proxy the test can cut.
describe('Health probes', () => {
  const directUrl = new URL(process.env.DATABASE_URL as string);
  const proxy = new TcpProxy(directUrl.hostname, Number(directUrl.port || 5432));
  let t: TestApp;
  const get = (path: string) => request(t.app.getHttpServer()).get(path);

  beforeAll(async () => {
    await proxy.up();
    const viaProxy = new URL(directUrl);
    viaProxy.port = String(proxy.port);
    t = await createTestApp({
      env: { HEALTH_TIMEOUT_MS: String(HEALTH_TIMEOUT_MS), DATABASE_TIMEOUT_MS: '1000' },
      appDatabaseUrl: viaProxy.toString(),
    });
  });

  afterAll(async () => {
    await t.close();
    await proxy.down();
  });

  it('live: 200 without a key, terminus JSON', async () => {
    const res = await get('/health/live').expect(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toEqual({ status: 'ok', info: {}, error: {}, details: {} });
  });

  it('ready: 200 while the database answers', async () => {
    const res = await get('/health/ready').expect(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.body).toEqual({
      status: 'ok',
      info: { shutdown: { status: 'up' }, database: databaseUp },
      error: {},
      details: { shutdown: { status: 'up' }, database: databaseUp },
    });
  });

  it('are public, and only they are', async () => {
    await request(t.app.getHttpServer()).get('/api/data/links').expect(401);
    await request(t.app.getHttpServer()).head('/health/ready').expect(200);
  });

  it('ready: 503 within the timeout while the database is cut off; live stays 200', async () => {
    await proxy.down();
    try {
      const started = Date.now();
      const res = await get('/health/ready').expect(503);
      expect(Date.now() - started).toBeLessThan(HEALTH_TIMEOUT_MS * 4);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.body).toMatchObject({
        status: 'error',
        info: { shutdown: { status: 'up' } },
        error: { database: { status: 'down' } },
      });
      expect(res.body).not.toHaveProperty('type'); // not problem details
      const live = await get('/health/live').expect(200);
      expect(live.body.status).toBe('ok');
    } finally {
      await proxy.up();
    }
    const deadline = Date.now() + 10000;
    let status = 0;
    while (status !== 200 && Date.now() < deadline) {
      status = (await get('/health/ready')).status;
      if (status !== 200) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(status).toBe(200);
  });

  it('ready: 503 once shutting down, while the API still serves', async () => {
    const state = t.app.get(ShutdownState);
    state.isShuttingDown = true;
    try {
      const res = await get('/health/ready').expect(503);
      expect(res.body).toEqual({
        status: 'error',
        info: { database: databaseUp },
        error: { shutdown: { status: 'down', message: 'shutting down' } },
        details: {
          shutdown: { status: 'down', message: 'shutting down' },
          database: databaseUp,
        },
      });
      await get('/health/live').expect(200);
      // Draining responses ask keep-alive clients to reconnect elsewhere.
      expect(res.headers.connection).toBe('close');
    } finally {
      state.isShuttingDown = false;
    }
  });
});
