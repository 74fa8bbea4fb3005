import { execFile } from 'node:child_process';
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual, promisify } from 'node:util';
import { createApiClient } from '@links-clients/client';
import type { Pool } from 'pg';
import { loadMirror, syncClients } from '../../examples/sync-clients';
import { PRINTED_CLIENT_COLUMNS, clientRowAsJson } from '../support/expected';
import { createTestApp, TestApp } from '../support/create-app';
import { FaultProxy } from '../support/fault-proxy';
import { insertManyClients } from '../support/fixtures';
import { testPool } from '../support/pg-client';
import { waitFor } from '../support/wait-for';

const API_KEY = 'test-key-primary';
const ROWS = 1500;
const STATUSES = ['new', 'connected', 'other'];
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const pick = <T>(items: T[]): T => items[Math.floor(Math.random() * items.length)];

describe('examples/sync-clients.ts (copy, then follow) against a running instance', () => {
  let t: TestApp;
  let baseUrl: string;
  let dir: string;
  let writers: Pool;

  beforeAll(async () => {
    t = await createTestApp();
    await insertManyClients(t.dataSource, ROWS);
    await t.app.listen(0, '127.0.0.1');
    baseUrl = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
    dir = mkdtempSync(join(tmpdir(), 'sync-clients-'));
    writers = testPool({ connectionString: process.env.DATABASE_URL, max: 6 });
  });
  afterAll(async () => {
    rmSync(dir, { recursive: true, force: true });
    await writers.end();
    await t.close();
  });

  /** The clients table as the API prints it, by id: what a mirror must equal. */
  async function table(linkId?: string): Promise<Record<string, unknown>> {
    const rows: Record<string, string>[] = await t.dataSource.query(
      `SELECT ${PRINTED_CLIENT_COLUMNS} FROM clients WHERE $1::text IS NULL OR link_id = $1`,
      [linkId ?? null],
    );
    return Object.fromEntries(rows.map((row) => [row.id, clientRowAsJson(row)]));
  }
  const mirrored = async (out: string) => Object.fromEntries((await loadMirror(out))!.rows);

  /** Writers inserting, updating and soft-deleting clients for `ms`; some hold their transaction open for seconds. */
  async function write(
    ms: number,
    writersCount: number,
  ): Promise<{ held: number; writes: number }> {
    const ids = Array.from({ length: ROWS }, (_, i) => `client-${String(i + 1).padStart(5, '0')}`);
    const stats = { held: 0, writes: 0 };
    const until = Date.now() + ms;
    const writer = async (w: number) => {
      for (let n = 0; Date.now() < until; n++) {
        const client = await writers.connect();
        try {
          await client.query('BEGIN');
          for (let op = 0; op < 3; op++) {
            const kind = pick(['insert', 'status', 'delete']);
            if (kind === 'insert') {
              const id = `w${w}-${n}-${op}`;
              await client.query('INSERT INTO clients (id, link_id, status) VALUES ($1, $2, $3)', [
                id,
                `link-${1 + Math.floor(Math.random() * 20)}`,
                pick(STATUSES),
              ]);
              ids.push(id);
            } else if (kind === 'status') {
              await client.query('UPDATE clients SET status = $2 WHERE id = $1', [
                pick(ids),
                pick(STATUSES),
              ]);
            } else {
              await client.query('UPDATE clients SET is_deleted = NOT is_deleted WHERE id = $1', [
                pick(ids),
              ]);
            }
          }
          // One transaction in five stays open while the other writers commit later changes.
          if (Math.random() < 0.2) {
            stats.held++;
            await pause(1000 + Math.random() * 1500);
          } else await pause(20);
          await client.query('COMMIT');
          stats.writes += 3;
        } catch {
          // Two writers deadlocked: that transaction is rolled back, as in life.
          await client.query('ROLLBACK');
        } finally {
          client.release();
        }
      }
    };
    await Promise.all(Array.from({ length: writersCount }, (_, w) => writer(w)));
    return stats;
  }

  it('copies, then follows concurrent writers: the mirror equals the table, every field', async () => {
    const out = join(dir, 'follow.jsonl');
    const api = createApiClient({ baseUrl, apiKey: API_KEY });
    const controller = new AbortController();
    let pages = 0;
    const following = syncClients({
      api,
      out,
      limit: 100,
      // Long polls, short enough to be over before the app closes.
      waitSeconds: 2,
      compactEvery: 10,
      signal: controller.signal,
      onPage: () => pages++,
    });
    const stats = await write(3500, 4);
    expect(stats.held).toBeGreaterThan(0);
    // The writers have stopped: nothing changes any more, so a skipped change would stay missing.
    // The sync catches up within a few polls; the wait's bound only ends a run that never does.
    const expected = await table();
    await waitFor(async () => isDeepStrictEqual(await mirrored(out), expected), {
      what: 'the mirror to catch up',
      timeoutMs: 30_000,
      intervalMs: 200,
    }).catch(() => undefined);
    controller.abort(new Error('stop following'));
    await expect(following).rejects.toThrow('stop following');
    expect(pages).toBeGreaterThan(ROWS / 100);
    expect(await mirrored(out)).toEqual(expected);

    // Nothing new: a --once run from the saved cursor changes nothing; the file is compacted.
    const again = await syncClients({ api, out, once: true });
    expect(Object.fromEntries(again.rows)).toEqual(await table());
    const lines = readFileSync(out, 'utf8').split('\n');
    expect(lines).toHaveLength(1 + Math.ceil(again.rows.size / 1000) + 1);
  }, 60_000);

  it('resumes a crashed copy from its saved cursor, through a 503, a 429 and a cut connection', async () => {
    const out = join(dir, 'resume.jsonl');
    const api = createApiClient({ baseUrl, apiKey: API_KEY });
    const controller = new AbortController();
    const crashed = syncClients({
      api,
      out,
      limit: 100,
      once: true,
      // Compacted after the second page: the third is appended to the compacted file.
      compactEvery: 2,
      signal: controller.signal,
      onPage: ({ rows }) => rows.size >= 300 && controller.abort(new Error('crash')),
    });
    await expect(crashed).rejects.toThrow('crash');
    expect((await loadMirror(out))?.rows.size).toBe(300);
    // A crash in the middle of appending a page leaves a torn line: it is not applied.
    appendFileSync(out, '{"cursor":"torn","rows":[{"id":"half');
    expect((await loadMirror(out))?.rows.size).toBe(300);

    const faults = { 1: 503, 3: 429, 5: 'reset' } as const;
    const proxy = new FaultProxy(baseUrl, (n) => faults[n as keyof typeof faults]);
    const proxyUrl = await proxy.start();
    try {
      const flaky = createApiClient({
        baseUrl: proxyUrl,
        apiKey: API_KEY,
        retry: { baseDelayMs: 50 },
      });
      await syncClients({ api: flaky, out, limit: 250, once: true });
      // It went on from the saved cursor, retrying each failed request as it was.
      expect(new URL(proxy.requests[0].url, proxyUrl).searchParams.get('cursor')).toEqual(
        expect.any(String),
      );
      for (const n of [1, 3, 5]) expect(proxy.requests[n].url).toBe(proxy.requests[n - 1].url);
      // Retry-After: 1 was honoured (timers may fire a little early).
      for (const n of [1, 3])
        expect(proxy.requests[n].at - proxy.requests[n - 1].at).toBeGreaterThanOrEqual(950);
    } finally {
      await proxy.stop();
    }
    expect(await mirrored(out)).toEqual(await table());
  }, 60_000);

  it('runs as the command of the docs (npm run example:sync), bound to its linkId', async () => {
    const root = join(__dirname, '../..');
    const run = promisify(execFile);
    const tsc = join(root, 'node_modules/typescript/bin/tsc');
    await run(process.execPath, [tsc, '-p', 'tsconfig.consumers.json'], { cwd: root });
    const out = join(dir, 'command.jsonl');
    const sync = (...args: string[]) =>
      run(process.execPath, ['dist-consumers/examples/sync-clients.js', '--out', out, ...args], {
        cwd: root,
        env: { ...process.env, API_BASE_URL: baseUrl, API_KEY },
        timeout: 60_000,
      });
    const expected = await table('link-3');
    // Followed by long polls of 1 s until two empty ones in a row, then stopped on its own.
    const startedAt = Date.now();
    const { stdout } = await sync(
      '--link-id',
      'link-3',
      '--limit',
      '7',
      '--wait',
      '1',
      '--max-idle-polls',
      '2',
    );
    expect(Date.now() - startedAt).toBeGreaterThanOrEqual(1000);
    expect(stdout).toBe(`${Object.keys(expected).length} clients in ${out}\n`);
    expect(await mirrored(out)).toEqual(expected);
    await expect(sync('--once')).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining('use --restart'),
    });
  }, 120_000);
});
