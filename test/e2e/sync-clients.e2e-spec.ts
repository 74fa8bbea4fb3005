import { execFile } from 'node:child_process';
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createApiClient } from '../../clients/typescript/src/client';
import { allClients } from '../../clients/typescript/src/iterate-clients';
import { syncClients } from '../../examples/sync-clients';
import { createTestApp, TestApp } from '../support/create-app';
import { Fault, FaultProxy } from '../support/fault-proxy';
import { insertManyClients } from '../support/fixtures';

const API_KEY = 'test-key-primary';
const ROWS = 3000;
const FILTER = { isDeleted: false };

describe('examples/sync-clients.ts against a running instance', () => {
  let t: TestApp;
  let baseUrl: string;
  let dir: string;
  let expected: unknown[];

  beforeAll(async () => {
    t = await createTestApp();
    await insertManyClients(t.dataSource, ROWS);
    await t.app.listen(0, '127.0.0.1');
    baseUrl = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
    dir = mkdtempSync(join(tmpdir(), 'sync-clients-'));
    // The mirror must hold exactly these: the API's own rows, in its order.
    expected = [];
    const api = createApiClient({ baseUrl, apiKey: API_KEY });
    for await (const client of allClients(api, FILTER)) expected.push(client);
    const [{ count }] = await t.dataSource.query(
      'SELECT count(*)::int AS count FROM clients WHERE NOT is_deleted',
    );
    expect(expected).toHaveLength(count);
    expect(count).toBeGreaterThan(2500);
  });
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    await t.close();
  });

  const readMirror = (out: string) =>
    readFileSync(out, 'utf8')
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => JSON.parse(line));

  async function withProxy<T>(
    faults: Record<number, Fault>,
    run: (url: string, proxy: FaultProxy) => Promise<T>,
  ): Promise<T> {
    const proxy = new FaultProxy(baseUrl, (n) => faults[n]);
    try {
      return await run(await proxy.start(), proxy);
    } finally {
      await proxy.stop();
    }
  }

  it('mirrors every row exactly once through an injected 503, 429 and cut connection', async () => {
    const out = join(dir, 'faults.jsonl');
    await withProxy({ 3: 503, 6: 429, 9: 'reset' }, async (url, proxy) => {
      const api = createApiClient({ baseUrl: url, apiKey: API_KEY, retry: { baseDelayMs: 50 } });
      const state = await syncClients({ api, out, filter: FILTER, limit: 250 });
      expect(state).toMatchObject({ rows: expected.length, cursor: null, done: true });
      expect(readMirror(out)).toEqual(expected);
      const faulted = proxy.requests.filter((r) => r.fault).map((r) => r.fault);
      expect(faulted).toEqual([503, 429, 'reset']);
      // Retry-After: 1 was honoured after the 503 and the 429 (timers may fire a little early).
      for (const n of [3, 6])
        expect(proxy.requests[n].at - proxy.requests[n - 1].at).toBeGreaterThanOrEqual(950);
      // Each retry repeated the request that failed.
      for (const n of [3, 6, 9]) expect(proxy.requests[n].url).toBe(proxy.requests[n - 1].url);
    });
  });

  it('resumes an interrupted sync from its last cursor, dropping a half-written page', async () => {
    const out = join(dir, 'resume.jsonl');
    const api = createApiClient({ baseUrl, apiKey: API_KEY });
    const controller = new AbortController();
    let pages = 0;
    const interrupted = syncClients({
      api,
      out,
      filter: FILTER,
      limit: 300,
      signal: controller.signal,
      onPage: () => ++pages === 3 && controller.abort(new Error('stop')),
    });
    await expect(interrupted).rejects.toThrow('stop');
    expect(readMirror(out)).toEqual(expected.slice(0, 900));
    // A crash after a page was written but before its state was saved leaves extra lines.
    appendFileSync(out, '{"id":"half-written page"}\n{"id":');

    await withProxy({ 1: 429 }, async (url, proxy) => {
      const retrying = createApiClient({ baseUrl: url, apiKey: API_KEY });
      const state = await syncClients({ api: retrying, out, filter: FILTER, limit: 300 });
      expect(state).toMatchObject({ rows: expected.length, done: true });
      expect(readMirror(out)).toEqual(expected);
      expect(new URL(proxy.requests[0].url, url).searchParams.get('cursor')).toEqual(
        expect.any(String),
      );
    });
  });

  it('refuses to resume a state saved for another filter', async () => {
    const out = join(dir, 'other-filter.jsonl');
    const api = createApiClient({ baseUrl, apiKey: API_KEY });
    const controller = new AbortController();
    const first = syncClients({
      api,
      out,
      filter: { status: 'new' },
      limit: 10,
      signal: controller.signal,
      onPage: () => controller.abort(new Error('stop')),
    });
    await expect(first).rejects.toThrow('stop');
    await expect(syncClients({ api, out, filter: FILTER })).rejects.toThrow(/--restart/);
    // The same filter, written otherwise, resumes: one more page.
    const again = new AbortController();
    const same = { isDeleted: undefined, status: 'new' as const };
    const resumed = syncClients({
      api,
      out,
      filter: same,
      limit: 10,
      signal: again.signal,
      onPage: () => again.abort(new Error('stop again')),
    });
    await expect(resumed).rejects.toThrow('stop again');
    expect(readMirror(out)).toHaveLength(20);
    const state = await syncClients({ api, out, filter: FILTER, restart: true });
    expect(state.rows).toBe(expected.length);
    expect(readMirror(out)).toEqual(expected);
  });

  it('runs as the command of the README (npm run example:sync)', async () => {
    const root = join(__dirname, '../..');
    const run = promisify(execFile);
    const tsc = join(root, 'node_modules/typescript/bin/tsc');
    await run(process.execPath, [tsc, '-p', 'tsconfig.consumers.json'], { cwd: root });
    const out = join(dir, 'command.jsonl');
    const { stdout } = await run(
      process.execPath,
      ['dist-consumers/examples/sync-clients.js', '--out', out, '--is-deleted', 'false'],
      { cwd: root, env: { ...process.env, API_BASE_URL: baseUrl, API_KEY }, timeout: 60_000 },
    );
    expect(stdout).toBe(`${expected.length} clients in ${out}\n`);
    expect(readMirror(out)).toEqual(expected);
  }, 60_000);
});
