import { Logger } from '@nestjs/common';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { DatabasePing, PING_CACHE_MS } from '../../src/health/database-ping';
import { DatabasePings } from '../../src/health/database-pings';
import { ShutdownState } from '../../src/health/shutdown-state';
import { createTestApp, TestApp } from '../support/create-app';
import { testClient } from '../support/pg-client';
import { TcpProxy } from '../support/tcp-proxy';
import { waitFor } from '../support/wait-for';

const HEALTH_TIMEOUT_MS = 500;
const databaseUp = { status: 'up', responseTime: expect.any(Number) };
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
// What a probe's body must never carry (docs/operations.md): addresses, users, driver messages.
const INTERNALS =
  /127\.0\.0\.1|localhost|postgres|ECONN|ENOTFOUND|\.invalid|secret|role|password|timeout/i;

const SUITE_DATABASE_URL = process.env.DATABASE_URL as string;

interface PgPool {
  options: { max: number };
  totalCount: number;
  idleCount: number;
  waitingCount: number;
  query(sql: string): Promise<unknown>;
}

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
  afterEach(() => jest.restoreAllMocks());

  it('live: 200 without a key, terminus JSON', async () => {
    const res = await get('/health/live').expect(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toEqual({ status: 'ok', info: {}, error: {}, details: {} });
  });

  it('ready: 200 while the database answers', async () => {
    const res = await get('/health/ready').expect(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.headers['cache-control']).toBe('no-store');
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
    const log = jest.spyOn(Logger.prototype, 'log');
    const warn = jest.spyOn(Logger.prototype, 'warn');
    const error = jest.spyOn(Logger.prototype, 'error');
    await proxy.down();
    try {
      await sleep(PING_CACHE_MS + 50); // the answer of the test before, reused until then
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
      expect(JSON.stringify(res.body)).not.toMatch(INTERNALS);
      const live = await get('/health/live').expect(200);
      expect(live.body.status).toBe('ok');
      await sleep(PING_CACHE_MS + 50);
      await get('/health/ready').expect(503); // a second probe, pinging again
    } finally {
      await proxy.up();
    }
    await waitFor(async () => (await get('/health/ready')).status === 200, {
      what: 'readiness once the database is back',
      intervalMs: 100,
    });
    await get('/health/ready').expect(200);
    // One line when readiness is lost and one when it is back, however many probes failed.
    // (The change feeds' listener, behind the same proxy, says so in lines of its own.)
    const lines = (spy: jest.SpyInstance) =>
      spy.mock.calls
        .map(([message]) => String(message))
        .filter((line) => line.startsWith('Readiness'));
    expect(lines(warn)).toEqual([
      expect.stringMatching(/^Readiness: database did not answer: .*ECONNREFUSED/),
    ]);
    expect(lines(log)).toEqual(['Readiness: database answers again']);
    expect(error).not.toHaveBeenCalled();
  });

  it('ready: 503 when connecting and answering take longer than the timeout together', async () => {
    // A fresh ping connection, then every packet held: connecting and the query each take
    // ~300 ms, within the timeout alone, past it together.
    await proxy.down();
    proxy.delayMs = 150;
    await proxy.up();
    try {
      await sleep(PING_CACHE_MS + 50);
      // Each step alone would pass (a 200): only a deadline over both answers 503.
      const res = await get('/health/ready').expect(503);
      expect(res.body.error).toMatchObject({ database: { status: 'down' } });
    } finally {
      proxy.delayMs = 0;
    }
    await waitFor(async () => (await get('/health/ready')).status === 200, {
      what: 'readiness once the database answers in time',
      intervalMs: 100,
    });
  });

  it('ready: 200 while every connection of the request pool is held by a waiting query', async () => {
    // TypeORM's pg Pool for the primary: the one requests queue for.
    const pool = (t.app.get(DataSource).driver as unknown as { master: PgPool }).master;
    // Held until the test lets go, however long the machine takes to get to the probe (past
    // the pool's statement_timeout too, for this transaction alone).
    const holder = testClient({ connectionString: SUITE_DATABASE_URL });
    await holder.connect();
    await holder.query('SELECT pg_advisory_lock(4242)');
    const held = Array.from({ length: pool.options.max }, () =>
      pool
        .query('BEGIN; SET LOCAL statement_timeout = 0; SELECT pg_advisory_xact_lock(4242); COMMIT')
        .catch(() => undefined),
    );
    try {
      await sleep(PING_CACHE_MS + 100);
      await waitFor(() => pool.totalCount - pool.idleCount === pool.options.max, {
        what: 'every pooled connection to be busy',
        intervalMs: 20,
      });
      // A ping queued behind the held connections would miss its deadline: a 503.
      const res = await get('/health/ready').expect(200);
      expect(res.body.info.database).toEqual(databaseUp);
      expect(pool.waitingCount).toBe(0);
      expect(pool.totalCount - pool.idleCount).toBe(pool.options.max);
    } finally {
      await holder.end();
      await Promise.all(held);
    }
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

// The databases the probe pings, swapped for ones that cannot be reached in three ways.
describe('Health probes when the database refuses, rejects the user or does not exist', () => {
  let t: TestApp;
  const pings: DatabasePing[] = [];

  beforeAll(async () => {
    process.env.DATABASE_URL = SUITE_DATABASE_URL; // the suite above pointed it at its proxy
    const unknownRole = new URL(SUITE_DATABASE_URL);
    unknownRole.username = 'secret_role';
    unknownRole.password = 'secret_password';
    const targets = [
      'postgres://secret_user:secret_password@127.0.0.1:1/db',
      unknownRole.toString(),
      'postgres://secret_user:secret_password@db.secret.invalid:5432/db',
    ];
    pings.push(
      ...targets.map(
        (connectionString, index) =>
          new DatabasePing(
            index === 0 ? 'database' : `replica-${index - 1}`,
            { connectionString },
            HEALTH_TIMEOUT_MS,
          ),
      ),
    );
    t = await createTestApp({
      override: (builder) => builder.overrideProvider(DatabasePings).useValue({ all: pings }),
    });
  });
  afterAll(async () => {
    await t.close();
    await Promise.all(pings.map((ping) => ping.close()));
  });

  it('ready: 503 naming the failed checks only, no address, user or driver message', async () => {
    const res = await request(t.app.getHttpServer()).get('/health/ready').expect(503);
    expect(res.body).toEqual({
      status: 'error',
      info: { shutdown: { status: 'up' } },
      error: {
        database: { status: 'down', message: 'not answering' },
        'replica-0': { status: 'down', message: 'not answering' },
        'replica-1': { status: 'down', message: 'not answering' },
      },
      details: expect.any(Object),
    });
    expect(JSON.stringify(res.body)).not.toMatch(INTERNALS);
  });
});
