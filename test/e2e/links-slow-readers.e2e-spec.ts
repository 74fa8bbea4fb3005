import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { connect, Socket } from 'node:net';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { freePort } from '../../src/dev/free-port';
import { compiledApp, RunningApi, startCompiledApi } from '../support/compiled-app';
import { bulkLoad, createSuiteDatabase, dropSuiteDatabase } from '../support/database';
import { waitFor } from '../support/wait-for';

// The pod's memory limit in deploy/; the image's heap bound for it (half of it, 8 MB semi-spaces).
const POD_MEMORY_LIMIT_BYTES = 256 * 1024 * 1024;
const HEAP_BOUND = '--max-old-space-size=128 --max-semi-space-size=8';
const KEY = randomBytes(24).toString('base64url');
const LINKS = 150_000;
const WRITE_TIMEOUT_MS = 15_000;
const PAUSED_READERS = 12;

/** The process's peak resident memory so far (VmHWM), in bytes. */
function peakRss(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/^VmHWM:\s+(\d+) kB/m.exec(status)?.[1]) * 1024;
}

/**
 * A connection that asks for List Links and never reads the answer. (Paused, it does not read
 * the connection's end either: the server's metrics tell when it cut one.)
 */
function pausedReader(url: string): Socket {
  const { hostname, port } = new URL(url);
  const socket = connect(Number(port), hostname);
  socket.on('error', () => undefined);
  socket.write(`GET /api/data/links HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\n\r\n`);
  socket.pause();
  return socket;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// A render shared by many requests used to move at its slowest reader's pace, and one that
// waited on a reader held one of the MAX_CONCURRENT_LIST_RENDERS until the write timeout: a
// reader that falls behind goes on alone, and one that stops reading holds no render.
describe('List Links beside readers that never read', () => {
  let dataSource: DataSource;
  let api: RunningApi;
  let metricsUrl: string;
  let aloneMs: number;
  let paused: Socket[] = [];

  const listLinks = async () => {
    const started = performance.now();
    const res = await fetch(`${api.url}/api/data/links`, {
      headers: { Authorization: `Bearer ${KEY}` },
    });
    const list = res.status === 200 ? ((await res.json()) as ListBody) : undefined;
    return { status: res.status, list, ms: performance.now() - started };
  };
  const expectWholeList = (list: ListBody | undefined) => {
    expect(list?.meta).toEqual({ total: LINKS });
    expect(list?.data).toHaveLength(LINKS);
    expect(list?.data[0].id).toBe('link-000001');
    expect(list?.data.at(-1)?.id).toBe(`link-${LINKS}`);
  };
  const metric = async (line: RegExp) =>
    Number(line.exec(await (await fetch(metricsUrl)).text())?.[1] ?? 0);
  const connectionsInUse = () => metric(/^db_pool_connections_in_use\{pool="primary"\} (\d+)$/m);
  const writeTimeouts = () => metric(/^http_requests_shed_total\{reason="write_timeout"\} (\d+)$/m);

  beforeAll(async () => {
    const mainJs = join(await compiledApp(), 'main.js');
    dataSource = await createSuiteDatabase();
    await bulkLoad(dataSource, (manager) =>
      manager.query(
        `INSERT INTO links (id, created_at, updated_at)
         SELECT 'link-' || lpad(g::text, 6, '0'), now(), now() FROM generate_series(1, $1::int) g`,
        [LINKS],
      ),
    );
    const metricsPort = await freePort();
    metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
    api = await startCompiledApi(mainJs, {
      PATH: process.env.PATH as string,
      NODE_ENV: 'production',
      NODE_OPTIONS: HEAP_BOUND,
      DATABASE_URL: process.env.DATABASE_URL as string,
      API_KEYS: KEY,
      CURSOR_SECRET: 'slow-readers-cursor-secret-0123456789',
      RATE_LIMIT_PER_IP: '100000000',
      RATE_LIMIT_PER_KEY: '100000000',
      RESPONSE_WRITE_TIMEOUT_MS: String(WRITE_TIMEOUT_MS),
      PORT: '0',
      METRICS_PORT: String(metricsPort),
    });
    // Its time alone, warm.
    await listLinks();
    const alone = await listLinks();
    expect(alone.status).toBe(200);
    expectWholeList(alone.list);
    aloneMs = alone.ms;
  }, 180_000);
  afterEach(() => {
    for (const socket of paused) socket.destroy();
    paused = [];
    expect(api.child.exitCode).toBeNull();
    expect(peakRss(api.child.pid as number)).toBeLessThan(POD_MEMORY_LIMIT_BYTES);
  });
  afterAll(async () => {
    api?.child.kill('SIGKILL');
    await dropSuiteDatabase(dataSource);
  });

  it('serves a reader sharing a render with them at its own pace; the server closes them', async () => {
    const cutBefore = await writeTimeouts();
    // All at once: they join one render, the reader among them.
    paused = Array.from({ length: PAUSED_READERS }, () => pausedReader(api.url));
    const reader = await listLinks();
    expect(reader.status).toBe(200);
    expectWholeList(reader.list);
    // Time is the behaviour here: the reader no longer waits for them (it used to wait for the
    // write timeout to cut them); the margin holds on a loaded machine.
    expect(reader.ms).toBeLessThan(2 * aloneMs + 1000);
    // Cut by the write timeout, each after it stopped reading.
    await waitFor(async () => (await writeTimeouts()) - cutBefore === PAUSED_READERS, {
      what: 'the server to cut the readers that never read',
      timeoutMs: WRITE_TIMEOUT_MS + 10_000,
      intervalMs: 200,
    });
  }, 60_000);

  it('leaves them no render nor connection: the next readers get 200, not 503', async () => {
    const cutBefore = await writeTimeouts();
    for (let i = 0; i < PAUSED_READERS; i++) {
      paused.push(pausedReader(api.url));
      await sleep(250);
    }
    // Their renders have stopped, while every one of them is still connected.
    await waitFor(async () => (await connectionsInUse()) === 0, {
      what: 'no pooled connection held for the readers that never read',
      timeoutMs: WRITE_TIMEOUT_MS / 2,
      intervalMs: 100,
    });
    expect((await writeTimeouts()) - cutBefore).toBe(0);
    for (let i = 0; i < 3; i++) {
      const reader = await listLinks();
      expect(reader.status).toBe(200);
      expectWholeList(reader.list);
    }
  }, 60_000);
});

interface ListBody {
  data: { id: string }[];
  meta: { total: number };
}
