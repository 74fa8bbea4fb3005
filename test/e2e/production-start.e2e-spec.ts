import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { EXAMPLE_CURSOR_SECRET, weakApiKeyProblems } from '../../src/config/weak-secrets';
import { compiledApp, run, startCompiledApi } from '../support/compiled-app';
import { onTestServer } from '../support/database';
import { waitFor } from '../support/wait-for';

// The production path as an operator meets it: compile, `migration:run`, then `node dist/main.js`.
describe('production start', () => {
  // The production start refuses keys under 32 characters.
  const key = randomBytes(24).toString('base64url');
  let outDir: string;
  const databaseUrl = new URL(process.env.DATABASE_URL as string);
  databaseUrl.pathname += '_prod';
  const databaseName = databaseUrl.pathname.slice(1);
  const baseEnv = { PATH: process.env.PATH as string, NODE_ENV: 'production' };

  beforeAll(async () => {
    outDir = await compiledApp();
    await onTestServer(`CREATE DATABASE "${databaseName}"`);
  }, 120000);

  afterAll(async () => {
    await onTestServer(`DROP DATABASE IF EXISTS "${databaseName}" WITH (FORCE)`);
  });

  it('`npm run start:prod` is `node dist/main.js`, which the build writes', () => {
    const { scripts } = JSON.parse(readFileSync('package.json', 'utf8'));
    expect(scripts['start:prod']).toBe('node dist/main.js');
    expect(existsSync(join(outDir, 'main.js'))).toBe(true);
  });

  it('refuses to boot without its configuration, naming each variable', async () => {
    const failure = await run('node', [join(outDir, 'main.js')], { env: baseEnv }).catch(
      (error) => error,
    );
    expect(failure.code).toBe(1);
    expect(failure.stderr).toContain('DATABASE_URL is required');
    expect(failure.stderr).toContain('API_KEYS is required');
    expect(failure.stderr).toContain('CURSOR_SECRET is required');
    expect(failure.stderr).not.toMatch(/\n\s+at /); // one message, no stack trace
  });

  it('refuses short, placeholder and example keys, naming each by position, printing none', async () => {
    const weak = ['short-key', 'x'.repeat(24) + '-change-me', 'dev-key-change-me'];
    const failure = await run('node', [join(outDir, 'main.js')], {
      env: {
        ...baseEnv,
        DATABASE_URL: databaseUrl.toString(),
        PORT: '0',
        METRICS_PORT: '0',
        API_KEYS: [key, ...weak].join(','),
      },
    }).catch((error) => error);
    expect(failure.code).toBe(1);
    expect(failure.stderr).toContain('API_KEYS entry 2 is shorter than 32 characters');
    expect(failure.stderr).toContain('API_KEYS entry 3 is a placeholder');
    expect(failure.stderr).toContain('API_KEYS entry 4 is shorter than 32 characters');
    expect(failure.stderr).not.toContain('API_KEYS entry 1');
    // In the same message as the other invalid variables (baseEnv has no CURSOR_SECRET).
    expect(failure.stderr).toMatch(/Invalid environment:[^]*CURSOR_SECRET[^]*API_KEYS entry 2/);
    for (const value of [key, ...weak, 'change-me-'])
      expect(failure.stdout + failure.stderr).not.toContain(value);
    expect(failure.stderr).not.toMatch(/\n\s+at /);
  });

  it('logs a database it cannot reach as JSON lines, without its password, and exits 1', async () => {
    const closedPort = new URL(databaseUrl.toString());
    closedPort.port = '1';
    closedPort.password = 'hunter2';
    const failure = await run('node', [join(outDir, 'main.js')], {
      env: {
        ...baseEnv,
        DATABASE_URL: closedPort.toString(),
        API_KEYS: key,
        CURSOR_SECRET: 'prod-cursor-secret-0123456789abcdef',
      },
    }).catch((error) => error);
    expect(failure.code).toBe(1);
    const lines = `${failure.stdout}${failure.stderr}`.split('\n').filter(Boolean);
    for (const line of lines) expect(() => JSON.parse(line)).not.toThrow();
    expect(failure.stderr).toContain('Unable to connect to the database');
    expect(failure.stdout + failure.stderr).not.toContain('hunter2');
  }, 30000);

  it('refuses a placeholder or made-up cursor secret, printing none', async () => {
    const weak = { CURSOR_SECRET: ' '.repeat(35), CURSOR_SECRET_PREVIOUS: 'change-me'.repeat(4) };
    const failure = await run('node', [join(outDir, 'main.js')], {
      env: { ...baseEnv, DATABASE_URL: databaseUrl.toString(), API_KEYS: key, ...weak },
    }).catch((error) => error);
    expect(failure.code).toBe(1);
    expect(failure.stderr).toContain('CURSOR_SECRET has fewer than 10 distinct characters');
    expect(failure.stderr).toContain('CURSOR_SECRET_PREVIOUS is a placeholder');
    expect(failure.stderr).not.toContain(weak.CURSOR_SECRET_PREVIOUS);
    expect(failure.stderr).not.toMatch(/\n\s+at /);
  });

  it('refuses plain keys, a repeated secret, too many proxy hops and an unverified remote database', async () => {
    const secret = 'prod-cursor-secret-0123456789abcdef';
    const remote = new URL(databaseUrl.toString());
    remote.hostname = 'db.example.invalid';
    remote.search = '?sslmode=require';
    const failure = await run('node', [join(outDir, 'main.js')], {
      env: {
        ...baseEnv,
        DATABASE_URL: remote.toString(),
        API_KEYS: `${key},${'a'.repeat(32)}`,
        CURSOR_SECRET: secret,
        CURSOR_SECRET_PREVIOUS: secret,
        TRUST_PROXY: '1000',
      },
    }).catch((error) => error);
    expect(failure.code).toBe(1);
    for (const problem of [
      'API_KEYS entry 2 has fewer than 10 distinct characters',
      'CURSOR_SECRET_PREVIOUS must differ from CURSOR_SECRET',
      'TRUST_PROXY must be a hop count from 0 to 10',
      'DATABASE_URL reaches a database on another host without sslmode=verify-full',
    ])
      expect(failure.stderr).toContain(problem);
    expect(failure.stderr).not.toContain(secret);
  });

  // Each a one-line refusal, never a stack trace or a boot that waits forever.
  it('refuses a proxy set trusting everyone, a FIFO secret file, the docs’ cursor secret and a key that is a sequence', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'refusals-'));
    const fifo = join(dir, 'cursor-secret');
    await run('mkfifo', [fifo]);
    try {
      for (const [extra, problem] of [
        [{ TRUST_PROXY: '0.0.0.0/0' }, 'TRUST_PROXY trusts every address'],
        [{ TRUST_PROXY: '::/0' }, 'TRUST_PROXY trusts every address'],
        [
          { CURSOR_SECRET: '', CURSOR_SECRET_FILE: fifo },
          `CURSOR_SECRET_FILE: ${fifo} is not a regular file`,
        ],
        [
          { CURSOR_SECRET: EXAMPLE_CURSOR_SECRET },
          'CURSOR_SECRET is an example secret published with the project',
        ],
        [
          { API_KEYS: '01234567890123456789012345678901' },
          'API_KEYS entry 1 is a short pattern repeated',
        ],
      ] as const) {
        const failure = await run('node', [join(outDir, 'main.js')], {
          env: {
            ...baseEnv,
            DATABASE_URL: databaseUrl.toString(),
            API_KEYS: key,
            CURSOR_SECRET: 'prod-cursor-secret-0123456789abcdef',
            ...extra,
          },
          timeout: 20_000,
        }).catch((error) => error);
        expect(failure.code).toBe(1);
        const lines = String(failure.stderr).trim().split('\n');
        // (A refused secret file leaves its variable unset, which is named too.)
        expect(lines[0]).toBe('Invalid environment:');
        expect(lines.slice(1)).toContainEqual(expect.stringContaining(`  - ${problem}`));
        expect(lines.slice(1).every((line) => line.startsWith('  - '))).toBe(true);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 120000);

  const env = {
    ...baseEnv,
    DATABASE_URL: databaseUrl.toString(),
    API_KEYS: key,
    CURSOR_SECRET: 'prod-cursor-secret-0123456789abcdef',
    PORT: '0',
    METRICS_PORT: '0',
    SHUTDOWN_DRAIN_DELAY_MS: '100',
  };

  const migrate = () =>
    run(
      'node_modules/.bin/typeorm',
      ['migration:run', '-d', join(outDir, 'entry/migration.data-source.js')],
      { env },
    );

  it('migrates with the CLI, then serves until SIGTERM, naming its heap limit', async () => {
    expect((await migrate()).stdout).toContain('CreateLinksAndClients1767225600000');

    // The image's heap bound for a 256Mi pod, which the start line reports.
    const api = await startCompiledApi(join(outDir, 'main.js'), {
      ...env,
      NODE_OPTIONS: '--max-old-space-size=128 --max-semi-space-size=8',
    });
    try {
      expect(api.stdout()).toContain('(V8 heap limit 152 MB)');
      const res = await fetch(`${api.url}/api/data/clients`, {
        headers: { Authorization: `Bearer ${key}` },
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
      expect(api.stdout()).not.toContain(key);
      // Both generations bounded, the default waiting polls: no warning (logged before any
      // request).
      expect(api.stdout()).not.toContain('young generation');
      expect(api.stdout()).not.toContain('MAX_WAITING_POLLS');
    } finally {
      api.child.kill('SIGTERM');
      expect(await api.exited).toBe(0);
      // Log lines are written asynchronously; the last ones, just before exit, still arrive.
      expect(api.stdout()).toContain('closed cleanly');
    }
  }, 30000);

  it('warns when NODE_OPTIONS bounds the old space alone', async () => {
    await migrate();
    const api = await startCompiledApi(join(outDir, 'main.js'), {
      ...env,
      NODE_OPTIONS: '--max-old-space-size=128',
    });
    try {
      const warning = await api.logLine((line) => line.level === 40);
      expect(warning.msg).toContain('give --max-semi-space-size=8 beside --max-old-space-size');
    } finally {
      api.child.kill('SIGTERM');
      await api.exited;
    }
  }, 30000);

  it('warns when MAX_WAITING_POLLS, all waiting, would fill over a third of the heap', async () => {
    await migrate();
    const api = await startCompiledApi(join(outDir, 'main.js'), {
      ...env,
      NODE_OPTIONS: '--max-old-space-size=128 --max-semi-space-size=8',
      MAX_WAITING_POLLS: '5000',
    });
    try {
      const warning = await api.logLine((line) => line.level === 40);
      expect(warning.msg).toContain(
        'MAX_WAITING_POLLS=5000: that many waiting long polls hold ~68 MB of heap, over a third ' +
          'of the V8 heap limit (152 MB)',
      );
    } finally {
      api.child.kill('SIGTERM');
      await api.exited;
    }
  }, 30000);

  // The probe makes objects the way a request through passport does and counts the full
  // collections they cost (test/support/pretenuring-probe.mjs).
  it('keeps the objects made per request young: V8 pretenures none of them', async () => {
    await migrate();
    const probe = join(process.cwd(), 'test/support/pretenuring-probe.mjs');
    const api = await startCompiledApi(join(outDir, 'main.js'), {
      ...env,
      NODE_OPTIONS: `--import "${probe}"`,
    });
    try {
      api.child.kill('SIGUSR2');
      const reported = await waitFor(() => /full collections: (\d+)/.exec(api.stderr()), {
        what: 'the probe to finish',
        timeoutMs: 60000,
      });
      expect(Number(reported[1])).toBeLessThanOrEqual(8);
    } finally {
      api.child.kill('SIGTERM');
      await api.exited;
    }
    // The probe's sensitivity: in a plain process, with V8's default, the same work costs a
    // hundred full collections or more (41 on a machine loaded beside two CPU burners), several
    // times the bound above.
    const plain = await run('node', [
      '--input-type=module',
      '-e',
      `import { countFullCollections } from ${JSON.stringify(probe)};
       console.log(await countFullCollections());`,
    ]);
    expect(Number(plain.stdout)).toBeGreaterThanOrEqual(24);
  }, 120000);
});

// docker-compose.yml: its one-shot `keygen` generates the key the production start accepts,
// and the API's command reads it unless the environment sets one. Run here as compose would
// (after its `$$` unescaping), on a scratch folder instead of the volume.
describe('docker compose keys', () => {
  const compose = parse(readFileSync('docker-compose.yml', 'utf8'));
  const keys = mkdtempSync(join(tmpdir(), 'compose-keys-'));
  const inKeys = (text: string) => text.replaceAll('/keys/', `${keys}/`).replaceAll('$$', '$');
  const [, , script] = compose.services.keygen.command;
  const [, , apiCommand] = compose.services.api.command;
  const apiEnv = (env: Record<string, string>) =>
    run('sh', ['-c', inKeys(apiCommand).replace('exec node dist/main.js', 'env')], {
      env: { PATH: process.env.PATH as string, ...env },
    }).then(({ stdout }) => Object.fromEntries(stdout.split('\n').map((l) => l.split(/=(.*)/s))));

  afterAll(() => rmSync(keys, { recursive: true, force: true }));

  it('ships no key, and generates strong ones once, printing only the API key', async () => {
    expect(readFileSync('docker-compose.yml', 'utf8')).not.toMatch(
      /change-me|API_KEYS: \$\{API_KEYS:-[^}]/,
    );
    const first = await run('node', ['-e', inKeys(script)]);
    const key = readFileSync(join(keys, 'api-key'), 'utf8');
    const secret = readFileSync(join(keys, 'cursor-secret'), 'utf8');
    expect(weakApiKeyProblems([key])).toEqual([]);
    expect(secret.length).toBeGreaterThanOrEqual(32);
    expect(first.stdout).toContain(`API key: ${key}`);
    expect(first.stdout).not.toContain(secret);
    // Later starts keep them: clients and cursors survive `docker compose up` again.
    await run('node', ['-e', inKeys(script)]);
    expect(readFileSync(join(keys, 'api-key'), 'utf8')).toBe(key);
    expect(await apiEnv({})).toMatchObject({ API_KEYS: key, CURSOR_SECRET: secret });
    expect(await apiEnv({ API_KEYS: 'mine', CURSOR_SECRET: 'ours' })).toMatchObject({
      API_KEYS: 'mine',
      CURSOR_SECRET: 'ours',
    });
  });
});
