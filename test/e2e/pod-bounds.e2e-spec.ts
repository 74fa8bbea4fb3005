import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { connect, Socket } from 'node:net';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { DataSource } from 'typeorm';
import { compiledApp, RunningApi, startCompiledApi } from '../support/compiled-app';
import { bulkLoad, createSuiteDatabase, dropSuiteDatabase } from '../support/database';

// The pod's memory limit in deploy/, and the probes' timeout.
const POD_MEMORY_LIMIT_BYTES = 256 * 1024 * 1024;
const PROBE_TIMEOUT_MS = 2000;
const KEY_A = randomBytes(24).toString('base64url');
const KEY_B = randomBytes(24).toString('base64url');
const LINKS = 200_000;
const CLIENTS = 30_000;

/** The process's peak resident memory so far (VmHWM), in bytes. */
function peakRss(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/^VmHWM:\s+(\d+) kB/m.exec(status)?.[1]) * 1024;
}

/** Calls /health/live every 100 ms until stopped; resolves with the slowest answer's time. */
function watchProbe(url: string): { stop(): Promise<number> } {
  let isWatching = true;
  let slowest = 0;
  const watching = (async () => {
    while (isWatching) {
      const started = performance.now();
      const res = await fetch(`${url}/health/live`, { signal: AbortSignal.timeout(10000) });
      expect(res.status).toBe(200);
      slowest = Math.max(slowest, performance.now() - started);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  })();
  return {
    stop: async () => {
      isWatching = false;
      await watching;
      return slowest;
    },
  };
}

/** A connection that asks for `path` and never reads the answer. */
function stalledReader(url: string, path: string, key: string): Socket {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  socket.on('error', () => undefined);
  socket.write(`GET ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\n\r\n`);
  socket.pause();
  return socket;
}

const fetchLinks = (url: string, key: string) =>
  fetch(`${url}/api/data/links`, { headers: { Authorization: `Bearer ${key}` } });

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// The image's heap bound, the pod's memory limit and probe timeout: whatever clients do, every
// answer is correct or a clean 429/503, memory stays under the limit, the probes answer in
// time and the process lives.
describe('A pod under abuse stays inside its limits', () => {
  let dataSource: DataSource;
  let api: RunningApi;
  const pid = () => api.child.pid as number;

  beforeAll(async () => {
    const mainJs = join(await compiledApp(), 'main.js');
    dataSource = await createSuiteDatabase();
    await bulkLoad(dataSource, async (manager) => {
      await manager.query(
        `INSERT INTO links (id) SELECT 'link-' || lpad(g::text, 6, '0') FROM generate_series(1, $1::int) g`,
        [LINKS],
      );
      await manager.query(
        `INSERT INTO clients (id, link_id, status)
         SELECT 'client-' || g, 'link-000001', 'new' FROM generate_series(1, $1::int) g`,
        [CLIENTS],
      );
      await manager.query('ANALYZE');
    });
    api = await startCompiledApi(mainJs, {
      PATH: process.env.PATH as string,
      NODE_ENV: 'production',
      NODE_OPTIONS: '--max-old-space-size=128 --max-semi-space-size=8',
      DATABASE_URL: process.env.DATABASE_URL as string,
      API_KEYS: `${KEY_A},${KEY_B}`,
      CURSOR_SECRET: 'pod-bounds-cursor-secret-0123456789abc',
      // Unthrottled, so the bounds are those of memory and work, not of the request budgets.
      RATE_LIMIT_PER_IP: '100000000',
      RATE_LIMIT_PER_KEY: '100000000',
      RESPONSE_WRITE_TIMEOUT_MS: '3000',
      PORT: '0',
      METRICS_PORT: '0',
    });
  }, 300000);
  afterAll(async () => {
    api?.child.kill('SIGKILL');
    await dropSuiteDatabase(dataSource);
  });
  let cleanUps: (() => Promise<unknown>)[] = [];
  const afterThisTest = (cleanUp: () => Promise<unknown>) => cleanUps.push(cleanUp);
  afterEach(async () => {
    for (const cleanUp of cleanUps) await cleanUp();
    cleanUps = [];
    expect(api.child.exitCode).toBeNull();
    expect(peakRss(pid())).toBeLessThan(POD_MEMORY_LIMIT_BYTES);
  });

  it('serves a flood of anonymous Brotli requests for the docs from memory', async () => {
    const probe = watchProbe(api.url);
    afterThisTest(() => probe.stop());
    const flood = await autocannon({
      url: `${api.url}/docs/openapi.json`,
      connections: 64,
      duration: 4,
      headers: { 'accept-encoding': 'br' },
    });
    expect(await probe.stop()).toBeLessThan(PROBE_TIMEOUT_MS);
    expect(flood.errors).toBe(0);
    expect(flood.non2xx).toBe(0);
    expect(flood['2xx']).toBeGreaterThan(100);
  }, 30000);

  it('cuts List Links answers nobody reads, and serves a reader beside them', async () => {
    const probe = watchProbe(api.url);
    const stalled: Socket[] = [];
    afterThisTest(async () => {
      await probe.stop();
      for (const socket of stalled) socket.destroy();
    });
    for (let i = 0; i < 12; i++) {
      stalled.push(stalledReader(api.url, '/api/data/links', KEY_A));
      await sleep(250);
    }
    // A render holds its place in the cap a second at most once none of its readers reads: a
    // clean 503 meanwhile, then a 200.
    let res = await fetchLinks(api.url, KEY_B);
    while (res.status === 503) {
      expect(res.headers.get('retry-after')).toMatch(/^[1-4]$/);
      await sleep(1000);
      res = await fetchLinks(api.url, KEY_B);
    }
    expect(res.status).toBe(200);
    const list = (await res.json()) as { data: unknown[]; meta: { total: number } };
    expect(list.data).toHaveLength(LINKS);
    expect(list.meta.total).toBe(LINKS);
    expect(await probe.stop()).toBeLessThan(PROBE_TIMEOUT_MS);
  }, 60000);

  it('holds a thousand idle connections', async () => {
    const { hostname, port } = new URL(api.url);
    const idle = Array.from({ length: 1000 }, () =>
      connect(Number(port), hostname).on('error', () => undefined),
    );
    await sleep(2000);
    const started = performance.now();
    const res = await fetch(`${api.url}/health/live`);
    expect(res.status).toBe(200);
    expect(performance.now() - started).toBeLessThan(PROBE_TIMEOUT_MS);
    for (const socket of idle) socket.destroy();
  }, 30000);

  // Deep pages hold pooled connections for long: at most MAX_CONCURRENT_DEEP_PAGES (2) run at
  // once, the rest are refused at once, never queued, and the pool is left to other reads.
  it("keeps one key's deep pages from taking the connections another key's reads need", async () => {
    const deepPagesRunning = async () => {
      const [{ n }] = await dataSource.query(
        `SELECT count(*)::int AS n FROM pg_stat_activity
         WHERE datname = current_database() AND pid <> pg_backend_pid()
           AND state = 'active' AND query LIKE '%OFFSET $%'`,
      );
      return n as number;
    };
    const getById = () =>
      fetch(`${api.url}/api/data/clients/client-7`, {
        headers: { Authorization: `Bearer ${KEY_B}` },
      });
    const flood = autocannon({
      url: `${api.url}/api/data/clients?page=299&limit=100&status=new`,
      connections: 20,
      duration: 4,
      headers: { authorization: `Bearer ${KEY_A}` },
    });
    await sleep(500);
    const running: number[] = [];
    const statuses: number[] = [];
    for (let i = 0; i < 20; i++) {
      running.push(await deepPagesRunning());
      statuses.push((await getById()).status);
    }
    const result = await flood;
    expect(result.errors).toBe(0);
    const codes = Object.keys(result.statusCodeStats ?? {});
    expect(codes).toEqual(expect.arrayContaining(['200', '503']));
    expect(codes.filter((code) => code !== '200' && code !== '503')).toEqual([]);
    expect(Math.max(...running)).toBeLessThanOrEqual(2);
    expect(statuses).toEqual(Array(20).fill(200));
  }, 30000);
});
