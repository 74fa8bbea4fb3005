import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { compileApp, onTestServer, run, startCompiledApi } from '../support/compiled-app';

// The production path as an operator meets it: compile, `migration:run`, then `node dist/main.js`.
describe('production start', () => {
  let outDir: string;
  const databaseUrl = new URL(process.env.DATABASE_URL as string);
  databaseUrl.pathname += '_prod';
  const databaseName = databaseUrl.pathname.slice(1);
  const baseEnv = { PATH: process.env.PATH as string, NODE_ENV: 'production' };

  beforeAll(async () => {
    outDir = await compileApp();
    await onTestServer(`CREATE DATABASE "${databaseName}"`);
  }, 120000);

  afterAll(async () => {
    rmSync(outDir, { recursive: true, force: true });
    await onTestServer(`DROP DATABASE IF EXISTS "${databaseName}" WITH (FORCE)`);
  });

  it('refuses to boot without its configuration, naming each variable', async () => {
    const failure = await run('node', [join(outDir, 'entry/main.js')], { env: baseEnv }).catch(
      (error) => error,
    );
    expect(failure.code).toBe(1);
    expect(failure.stderr).toContain('DATABASE_URL is required');
    expect(failure.stderr).toContain('API_KEYS is required');
    expect(failure.stderr).not.toMatch(/\n\s+at /); // one message, no stack trace
  });

  it('migrates with the CLI, then serves until SIGTERM', async () => {
    const env = {
      ...baseEnv,
      DATABASE_URL: databaseUrl.toString(),
      API_KEYS: 'prod-key',
      PORT: '0',
      SHUTDOWN_DRAIN_DELAY_MS: '100',
    };
    const migrate = await run(
      'node_modules/.bin/typeorm',
      ['migration:run', '-d', join(outDir, 'entry/migration.data-source.js')],
      { env },
    );
    expect(migrate.stdout).toContain('CreateLinksAndClients1767225600000');

    const api = await startCompiledApi(join(outDir, 'entry/main.js'), env);
    try {
      const res = await fetch(`${api.url}/api/data/clients`, {
        headers: { Authorization: 'Bearer prod-key' },
      });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({
        data: [],
        meta: { page: 1, limit: 100, total: 0, totalPages: 0, nextCursor: null },
      });
      // Production logs are JSON lines, one per request, without the key.
      const line = await api.logLine((entry) => entry.route === '/api/data/clients');
      expect(line).toMatchObject({
        level: 30,
        msg: 'request completed',
        requestId: res.headers.get('x-request-id'),
        method: 'GET',
        status: 200,
      });
      expect(api.stdout()).not.toContain('prod-key');
    } finally {
      api.child.kill('SIGTERM');
      expect(await api.exited).toBe(0);
    }
  }, 30000);
});
