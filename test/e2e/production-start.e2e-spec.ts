import { ChildProcess, execFile, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client as PgClient } from 'pg';

const run = promisify(execFile);

// CONTRACT §5–6 as an operator meets them: compile, `migration:run`, then `node dist/main.js`.
describe('production start', () => {
  // Inside the project, so the compiled files resolve node_modules as dist/ does.
  mkdirSync('node_modules/.cache', { recursive: true });
  const outDir = mkdtempSync('node_modules/.cache/links-clients-dist-');
  const databaseUrl = new URL(process.env.DATABASE_URL as string);
  databaseUrl.pathname += '_prod';
  const baseEnv = { PATH: process.env.PATH as string, NODE_ENV: 'production' };

  beforeAll(async () => {
    await run('npx', ['tsc', '-p', 'tsconfig.build.json', '--outDir', outDir]);
    const server = new PgClient({ connectionString: process.env.TEST_SERVER_URL });
    await server.connect();
    await server.query(`CREATE DATABASE "${databaseUrl.pathname.slice(1)}"`);
    await server.end();
  }, 120000);

  afterAll(async () => {
    rmSync(outDir, { recursive: true, force: true });
    const server = new PgClient({ connectionString: process.env.TEST_SERVER_URL });
    await server.connect();
    await server.query(`DROP DATABASE IF EXISTS "${databaseUrl.pathname.slice(1)}" WITH (FORCE)`);
    await server.end();
  });

  it('refuses to boot without its configuration, naming each variable', async () => {
    const failure = await run('node', [join(outDir, 'main.js')], { env: baseEnv }).catch(
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
    };
    const migrate = await run(
      'node_modules/.bin/typeorm',
      ['migration:run', '-d', join(outDir, 'database/migration.data-source.js')],
      { env },
    );
    expect(migrate.stdout).toContain('CreateLinksAndClients1767225600000');

    const api: ChildProcess = spawn('node', [join(outDir, 'main.js')], { env });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        api.stdout?.on('data', (chunk: Buffer) => {
          const match = /listening on (\S+)/.exec(chunk.toString());
          if (match) resolve(match[1]);
        });
        api.once('exit', (code) => reject(new Error(`exited with ${code}`)));
      });
      const res = await fetch(`${url}/api/data/clients`, {
        headers: { Authorization: 'Bearer prod-key' },
      });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({
        data: [],
        meta: { page: 1, limit: 100, total: 0, totalPages: 0, nextCursor: null },
      });
    } finally {
      const exited = new Promise<number | null>((resolve) => api.once('exit', resolve));
      api.kill('SIGTERM');
      expect(await exited).toBe(0);
    }
  }, 30000);
});
