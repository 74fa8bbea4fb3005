import { ChildProcess, execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { compiledApp } from '../support/compiled-app';
import { onTestServer } from '../support/database';
import { itWith } from '../support/optional-program';
import { testClient } from '../support/pg-client';
import { startRedis } from '../support/redis-server';
import { waitFor } from '../support/wait-for';
import { freePort } from '../../src/dev/free-port';
import { LOG_FLUSH_INTERVAL_MS } from '../../src/logging/log-destination';

const run = promisify(execFile);

interface RunningApi {
  url: string;
  output: () => string;
  stop: () => Promise<number | null>;
}

// The keys as an operator meets them: the compiled key CLI, and two API processes sharing one
// Redis budget, their logs searched for keys.
describe('Operations: key CLI, shared Redis limit, logs', () => {
  let outDir: string;
  const databaseUrl = new URL(process.env.DATABASE_URL as string);
  databaseUrl.pathname += '_ops';
  const redisPrefix = `test-ops-${randomBytes(6).toString('hex')}:`;
  const env = {
    PATH: process.env.PATH as string,
    NODE_ENV: 'production',
    DATABASE_URL: databaseUrl.toString(),
    CURSOR_SECRET: 'ops-cursor-secret-0123456789abcdefg',
  };
  const apis: RunningApi[] = [];
  let redis: ChildProcess | undefined;

  const keysCli = (args: string[], extraEnv: Record<string, string> = env, cwd?: string) =>
    run('node', [join(outDir, 'entry/keys-cli.js'), ...args], { env: extraEnv, cwd });

  function startApi(extraEnv: Record<string, string>): Promise<RunningApi> {
    const api: ChildProcess = spawn('node', [join(outDir, 'main.js')], {
      env: { ...env, PORT: '0', METRICS_PORT: '0', ...extraEnv },
    });
    let output = '';
    api.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    api.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    const exited = new Promise<number | null>((done) => api.once('exit', done));
    return new Promise((done, fail) => {
      const timer = setTimeout(() => fail(new Error(`no start: ${output}`)), 20000);
      api.stdout?.on('data', () => {
        const match = /listening on (http:\/\/[^\s"]+)/.exec(output);
        if (!match) return;
        clearTimeout(timer);
        const running = {
          url: match[1],
          output: () => output,
          stop: () => (api.kill('SIGTERM'), exited),
        };
        apis.push(running);
        done(running);
      });
      void exited.then((code) => fail(new Error(`exited with ${code}: ${output}`)));
    });
  }

  beforeAll(async () => {
    outDir = await compiledApp();
    await onTestServer(`CREATE DATABASE "${databaseUrl.pathname.slice(1)}"`);
    await run(
      'node_modules/.bin/typeorm',
      ['migration:run', '-d', join(outDir, 'entry/migration.data-source.js')],
      { env },
    );
  }, 120000);

  afterAll(async () => {
    await Promise.all(apis.map((api) => api.stop()));
    redis?.kill();
    await onTestServer(`DROP DATABASE IF EXISTS "${databaseUrl.pathname.slice(1)}" WITH (FORCE)`);
  });

  it('refuses to boot with no API_KEYS and no active key in the database', async () => {
    const failure = await run('node', [join(outDir, 'main.js')], {
      env: { ...env, PORT: '0', METRICS_PORT: '0' },
    }).catch((error) => error);
    expect(failure.code).toBe(1);
    expect(failure.stderr).toContain('No API keys: set API_KEYS, or create a key with');
  }, 30000);

  itWith(
    ['redis-server'],
    'issues, lists and revokes keys; two instances share one Redis budget; logs hold no key',
    async () => {
      const redisPort = await freePort();
      redis = await startRedis(redisPort);
      const created = await keysCli(['create', '--name', 'ops consumer', '--expires-in', '1d']);
      const key = /^\s+(lcapi_\w+)$/m.exec(created.stdout)?.[1] as string;
      expect(key).toMatch(/^lcapi_[0-9A-Za-z]{51}$/);
      const id = /\(id ([0-9a-f-]{36})\)/.exec(created.stdout)?.[1] as string;

      const listed = await keysCli(['list']);
      expect(listed.stdout).toContain(id);
      expect(listed.stdout).toContain('ops consumer');
      expect(listed.stdout).toContain(key.slice(0, 14));
      expect(listed.stdout).not.toContain(key);

      // No API_KEYS: the database is the only source of keys.
      const shared = {
        REDIS_URL: `redis://127.0.0.1:${redisPort}`,
        REDIS_KEY_PREFIX: redisPrefix,
        RATE_LIMIT_PER_KEY: '5',
        RATE_LIMIT_WINDOW_MS: '60000',
        KEY_CACHE_TTL_MS: '1000',
      };
      const [a, b] = await Promise.all([startApi(shared), startApi(shared)]);
      const statuses: number[] = [];
      for (let i = 0; i < 10; i++) {
        const res = await fetch(`${[a, b][i % 2].url}/api/data/links`, {
          headers: { Authorization: `Bearer ${key}` },
        });
        statuses.push(res.status);
        if (i === 0) expect(res.headers.get('ratelimit-remaining')).toBe('4');
        if (res.status === 429) expect(res.headers.get('retry-after')).toMatch(/^\d+$/);
      }
      expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429, 429, 429, 429]);

      // Keys sent where they do not belong are refused and must not reach the logs either.
      const leak = await fetch(`${a.url}/api/data/clients/${key}?access_token=${key}`);
      expect(leak.status).toBe(401);

      const revoked = await keysCli(['revoke', key.slice(0, 14)]);
      expect(revoked.stdout).toContain(`Revoked key ${key.slice(0, 14)}`);
      await waitFor(
        async () => {
          const codes = await Promise.all(
            [a, b].map(
              async (api) =>
                (
                  await fetch(`${api.url}/api/data/links`, {
                    headers: { Authorization: `Bearer ${key}` },
                  })
                ).status,
            ),
          );
          return codes.every((code) => code === 401);
        },
        { what: 'both instances to refuse the revoked key', timeoutMs: 5000, intervalMs: 200 },
      );

      // Lines reach stdout in batches, within LOG_FLUSH_INTERVAL_MS: wait for the request line
      // that names the key by its id, then for every line of the requests above.
      await waitFor(() => (a.output() + b.output()).includes(`"key":"${id}"`), {
        what: `a request line naming key ${id}`,
      });
      await new Promise((resolve) => setTimeout(resolve, 2 * LOG_FLUSH_INTERVAL_MS));
      const logs = a.output() + b.output();
      expect(logs).not.toContain(key.slice(14)); // the key is named by its id, never by its secret
      expect(logs).not.toMatch(/lcapi_[0-9A-Za-z]{20,}/);
      expect(logs).not.toMatch(/Bearer \S/i);
    },
    60000,
  );

  it('issues a scoped key, changes its scope, and lists what each key may see', async () => {
    const linksFile = join(mkdtempSync(join(tmpdir(), 'links-clients-scope-')), 'links.txt');
    writeFileSync(linksFile, 'link-1\nlink-2\n\nlink-1\n');
    const created = await keysCli([
      'create',
      '--name',
      'billing sync',
      '--operations',
      'clients:read,changes:read',
      '--links-file',
      linksFile,
    ]);
    expect(created.stdout).toContain('scope: clients:read, changes:read, links: link-1, link-2');
    const id = /\(id ([0-9a-f-]{36})\)/.exec(created.stdout)?.[1] as string;
    const listed = (await keysCli(['list'])).stdout;
    expect(listed).toContain('clients:read, changes:read, links: link-1, link-2');
    expect(listed).toContain('all operations, all links');

    const narrowed = await keysCli(['scope', id, '--links', 'link-9', '--operations', 'all']);
    expect(narrowed.stdout).toContain('all operations, links: link-9');
    const widened = await keysCli(['scope', id, '--links', 'all']);
    expect(widened.stdout).toContain('all operations, all links');
    const rows = testClient({ connectionString: env.DATABASE_URL });
    await rows.connect();
    const { rows: kept } = await rows.query(
      'SELECT operations, is_link_scoped, (SELECT count(*)::int FROM api_key_links WHERE key_id = $1) AS links FROM api_keys WHERE id = $1',
      [id],
    );
    await rows.end();
    expect(kept).toEqual([{ operations: null, is_link_scoped: false, links: 0 }]);
  });

  // Each name is unique to its case, so the list shows whether anything was created.
  it.each([
    [
      ['create', '--name', 'refused-op', '--operations', 'clients:write'],
      '--operations: clients:write is not one of links:read, clients:read, changes:read',
    ],
    [
      ['create', '--name', 'refused-both', '--links', 'a', '--links-file', '/dev/null'],
      'give --links or --links-file, not both',
    ],
    [['scope', 'nobody'], 'scope needs --operations, --links or --links-file'],
    [['create', '--name', 'refused-empty-expiry', '--expires-in', ''], 'Invalid duration ""'],
    [
      ['create', '--name', 'refused-first', '--name', 'refused-second'],
      '--name is given more than once',
    ],
    [['create', '--name', 'refused-long'.padEnd(201, '-')], '--name is longer than 200 characters'],
    [['create', '--name', 'refused-two\nlines'], '--name must not hold control'],
    [['create', '--name', 'refused-\u001b[31mred'], '--name must not hold control'],
    [['create', '--name', 'refused-\u202egnp.exe'], '--name must not hold control'],
  ])('refuses `keys %j` as a usage error, creating nothing', async (args, message) => {
    const failure = await keysCli(args).catch((error) => error);
    expect(failure.code).toBe(2);
    expect(failure.stderr).toContain(message);
    expect((await keysCli(['list'])).stdout).not.toContain('refused-');
  });

  it('works against the embedded development database when DATABASE_URL is unset', async () => {
    const cwd = mkdtempSync(join(tmpdir(), 'links-clients-keys-cli-'));
    // As a checkout is: the embedded server may run as the `postgres` user (when root).
    chmodSync(cwd, 0o755);
    const devEnv = { PATH: process.env.PATH as string };
    try {
      const created = await keysCli(['create', '--name', 'dev'], devEnv, cwd);
      expect(created.stdout).toMatch(/^\s+lcapi_[0-9A-Za-z]{51}$/m);
      const listed = await keysCli(['list'], devEnv, cwd);
      expect(listed.stdout).toContain('dev');
      const usage = await keysCli(['rotate'], devEnv, cwd).catch((error) => error);
      expect(usage.code).toBe(2);
      expect(usage.stderr).toContain('Unknown command: rotate');
    } finally {
      rmSync(cwd, { recursive: true, force: true });
    }
  }, 90000);
});
