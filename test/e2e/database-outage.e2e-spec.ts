import { Logger } from '@nestjs/common';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { ABANDON_AFTER_MS, DatabaseReader } from '../../src/database/database-reader';
import { DatabasePools } from '../../src/database/pools';
import { isDatabaseUnavailable } from '../../src/database/database-unavailable';
import { AUTH, createTestApp, TestApp } from '../support/create-app';
import { testClient } from '../support/pg-client';
import { expectProblem } from '../support/problem';
import { TcpProxy } from '../support/tcp-proxy';
import { waitFor } from '../support/wait-for';

// The heap still in use after a full collection: garbage from the load does not count.
setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;
const liveHeap = () => {
  collectGarbage();
  return process.memoryUsage().heapUsed;
};

const TIMEOUT_MS = 1000;
// Which deadline answered a 503 is read from its log line (ProblemDetailsFilter names the
// cause), not from the time it took: a loaded machine stretches the time, never the cause.
const WAITED_FOR_ANSWER = 'no answer within DATABASE_TIMEOUT_MS';
const WAITED_FOR_CONNECTION = 'no pooled connection within DATABASE_TIMEOUT_MS';

// The app reaches its database through a TCP proxy the test can cut, as a network or database
// outage would; the fixtures connect directly.
describe('Database outage and stalls (docs/api.md, Errors)', () => {
  const directUrl = new URL(process.env.DATABASE_URL as string);
  const proxy = new TcpProxy(directUrl.hostname, Number(directUrl.port || 5432));
  let t: TestApp;
  const get = (path: string) => request(t.app.getHttpServer()).get(path).set(AUTH);

  beforeAll(async () => {
    await proxy.up();
    const viaProxy = new URL(directUrl);
    viaProxy.port = String(proxy.port);
    t = await createTestApp({
      // One key sends every stalled request here: its own cap (a 429 past it) is not the subject.
      env: { DATABASE_TIMEOUT_MS: String(TIMEOUT_MS), MAX_REQUESTS_PER_KEY: '1000' },
      appDatabaseUrl: viaProxy.toString(),
    });
  });

  afterAll(async () => {
    await t.close();
    await proxy.down();
  });

  const expect503 = (res: request.Response) => {
    expectProblem(res, {
      status: 503,
      title: 'Service Unavailable',
      detail: 'The database is unavailable; retry later',
    });
    expect(res.headers['retry-after']).toBe('5');
  };

  /** The cause of each 503 logged while `work` ran. */
  const causesDuring = async <T>(work: () => Promise<T>) => {
    const warn = jest.spyOn(Logger.prototype, 'warn');
    try {
      const result = await work();
      const causes = warn.mock.calls
        .map(([message]) => /database unavailable \(requestId [^)]+\): (.*)$/.exec(String(message)))
        .flatMap((match) => (match ? [match[1]] : []));
      return { result, causes };
    } finally {
      warn.mockRestore();
    }
  };

  it('turns a stalled query into a 503 within the timeout, then serves again', async () => {
    const locker = testClient({ connectionString: directUrl.toString() });
    await locker.connect();
    try {
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE clients IN ACCESS EXCLUSIVE MODE');
      // Without the deadline it would wait on the lock for as long as the test holds it.
      const { result, causes } = await causesDuring(() => get('/api/data/clients'));
      expect503(result);
      expect(causes).toEqual([expect.stringContaining(WAITED_FOR_ANSWER)]);
    } finally {
      await locker.query('ROLLBACK');
      await locker.end();
    }
    await get('/api/data/clients').expect(200);
  });

  it('bounds the wait when more requests than pooled connections stall, and stays responsive', async () => {
    const locker = testClient({ connectionString: directUrl.toString() });
    await locker.connect();
    try {
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE clients IN ACCESS EXCLUSIVE MODE');
      // Five times the pool (10): most requests wait for a connection, not for the query. Were
      // that wait unbounded, each would get a connection in turn, run its query and time out
      // on it, in five waves: none would give up waiting for a connection.
      let settled = 0;
      const { result: stalled, causes } = await causesDuring(async () => {
        const all = Array.from({ length: 50 }, (_, i) =>
          get(`/api/data/clients?limit=${i + 1}`).then((res) => (settled++, res)),
        );
        // Meanwhile routes that need no database answer, while stalled requests still wait.
        await request(t.app.getHttpServer()).get('/docs/openapi.json').expect(200);
        expect(settled).toBeLessThan(all.length);
        return Promise.all(all);
      });
      for (const res of stalled) expect503(res);
      expect(causes).toHaveLength(50);
      expect(causes).toContainEqual(expect.stringContaining(WAITED_FOR_CONNECTION));
    } finally {
      await locker.query('ROLLBACK');
      await locker.end();
    }
    await get('/api/data/clients').expect(200);
  });

  // A network that drops a connection silently (no reset) leaves its query unanswered for
  // good: statement_timeout cannot reach the client, and a connection held for it would never
  // return to the pool.
  it('gives up a connection the database stopped answering on, a second after the 503', async () => {
    const pool = t.app.get(DatabasePools).primary!;
    const checkedOut = () => pool.totalCount - pool.idleCount;
    await get('/api/data/links').expect(200);
    proxy.silent = true;
    try {
      const { result, causes } = await causesDuring(() => get('/api/data/clients/c-2'));
      expect503(result);
      expect(causes).toEqual([expect.stringContaining(WAITED_FOR_ANSWER)]);
      expect(checkedOut()).toBeGreaterThan(0);
      await waitFor(() => checkedOut() === 0, {
        what: 'the unanswered connection to leave the pool',
        intervalMs: 50,
        timeoutMs: ABANDON_AFTER_MS + 20 * TIMEOUT_MS,
      });
    } finally {
      proxy.silent = false;
    }
    await get('/api/data/links').expect(200);
  });

  it('answers 503 while the database is unreachable, stays up, and recovers by itself', async () => {
    await get('/api/data/links').expect(200);
    await proxy.down();
    for (const path of [
      '/api/data/links',
      '/api/data/clients',
      '/api/data/clients/x',
      '/api/data/links/x',
    ]) {
      expect503(await get(path));
    }
    // Routes that need no database keep working.
    await request(t.app.getHttpServer()).get('/docs/openapi.json').expect(200);

    await proxy.up();
    await waitFor(async () => (await get('/api/data/links')).status === 200, {
      what: 'List Links to answer 200 once the database is back',
      intervalMs: 100,
    });
  });

  it('under steady load through an outage: every answer a 200 or a 503 given during it, bounded memory, recovery', async () => {
    const statuses = new Map<number, number>();
    let running = true;
    let isDown = false;
    // 503s received while the database was still cut off: answered, not held until it is back.
    let refusedWhileDown = 0;
    // Eight clients in a loop, bounded by time and count.
    const clients = Array.from({ length: 8 }, async (_, c) => {
      for (let i = 0; running && i < 5000; i++) {
        const res = await get(i % 2 ? '/api/data/clients?limit=5' : `/api/data/clients/c-${c}`);
        statuses.set(res.status, (statuses.get(res.status) ?? 0) + 1);
        if (isDown && res.status === 503) refusedWhileDown++;
      }
    });
    const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
    await pause(500);
    const heapBefore = liveHeap();
    await proxy.down();
    isDown = true;
    await pause(3000);
    const heapDuring = liveHeap();
    isDown = false;
    await proxy.up();
    await pause(2000);
    running = false;
    await Promise.all(clients);
    expect([...statuses.keys()].sort()).toEqual(expect.arrayContaining([503]));
    expect([...statuses.keys()].every((status) => [200, 404, 503].includes(status))).toBe(true);
    expect(refusedWhileDown).toBeGreaterThan(0);
    // Thousands of failed requests leave no pile-up behind: the live heap (after a full
    // collection) grows by a few MB here; the bound is generous, the test process shares it.
    expect(heapDuring - heapBefore).toBeLessThan(30 * 1024 * 1024);
    await get('/api/data/links').expect(200);
  });

  // Last: it closes the app's pools. A request on a kept-alive connection can still arrive
  // while the app shuts down; it is told to retry (elsewhere), not that the server failed.
  it('answers 503 to a read that arrives while the pools close, or after', async () => {
    const closing = t.app.get(DataSource).destroy();
    const whileClosing = t.app.get(DatabaseReader).query('SELECT 1', []);
    await expect(whileClosing.catch(isDatabaseUnavailable)).resolves.toBe(true);
    await closing;
    expect503(await get('/api/data/clients/c-1'));
  });
});
