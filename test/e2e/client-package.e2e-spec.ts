import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createTestApp, TestApp } from '../support/create-app';
import { insertClients, insertLinks } from '../support/fixtures';
import { runDir } from '../support/run-dir';

const run = promisify(execFile);
const ROOT = join(__dirname, '../..');
const PACKAGE = join(ROOT, 'clients/typescript');
const CLIENTS = [1, 2, 3, 4, 5, 6].map((n) => ({
  id: `client-${n}`,
  linkId: n === 6 ? 'link-b' : 'link-a',
  status: n === 2 ? 'connected' : 'new',
  createdAt: `2026-01-0${n}T00:00:00Z`,
  updatedAt: `2026-01-0${n}T00:00:00Z`,
}));

// The client as a consumer gets it: packed from a copy of clients/typescript without build
// output, installed from the tarball (and the registry) into a project outside the repository,
// compiled there with tsc --strict, then run against a live server as ES module and CommonJS.
describe('The client package (@links-clients/client) from its tarball', () => {
  const consumer = mkdtempSync(join(tmpdir(), 'links-clients-consumer-'));
  let packed: { files: string[]; manifest: Record<string, unknown>; installLog: string };
  let t: TestApp;
  let baseUrl: string;
  const runConsumer = async (script: string) =>
    JSON.parse(
      (
        await run(process.execPath, [script, baseUrl, 'test-key-primary', 'link-a'], {
          cwd: consumer,
        })
      ).stdout,
    );

  beforeAll(async () => {
    // Inside the project, so that its build finds TypeScript and openapi-fetch's types.
    const source = mkdtempSync(join(runDir(), 'client-package-'));
    for (const entry of [
      'src',
      'package.json',
      'build.mjs',
      'pack.mjs',
      'tsconfig.json',
      'README.md',
      'LICENSE',
    ])
      cpSync(join(PACKAGE, entry), join(source, entry), { recursive: true });
    cpSync(join(__dirname, '../client-consumer'), consumer, { recursive: true });
    // As `npm run client:pack` does.
    const tarball = (await run(process.execPath, [join(source, 'pack.mjs')])).stdout.trim();
    const listed = (await run('tar', ['-tzf', tarball])).stdout.trim().split('\n');
    const manifest = (await run('tar', ['-xOzf', tarball, 'package/package.json'])).stdout;
    const install = ['install', '--no-audit', '--no-fund', '--prefer-offline'];
    const installed = await run('npm', [...install, tarball], { cwd: consumer });
    packed = {
      files: listed.map((path) => path.replace(/^package\//, '')),
      manifest: JSON.parse(manifest),
      installLog: installed.stdout + installed.stderr,
    };
    const tsc = join(ROOT, 'node_modules/typescript/bin/tsc');
    const types = join(ROOT, 'node_modules/@types');
    await run(process.execPath, [tsc, '-p', consumer, '--typeRoots', types], { cwd: consumer });

    t = await createTestApp();
    await insertLinks(t.dataSource, [
      { id: 'link-a', createdAt: '2026-01-01T00:00:00Z' },
      { id: 'link-b', createdAt: '2026-01-02T00:00:00Z' },
    ]);
    await insertClients(t.dataSource, CLIENTS);
    await t.app.listen(0, '127.0.0.1');
    baseUrl = `http://127.0.0.1:${(t.app.getHttpServer().address() as AddressInfo).port}`;
  }, 120_000);
  afterAll(async () => {
    await t?.close();
    rmSync(consumer, { recursive: true, force: true });
  });

  // Its `prepare` builds from sources the tarball does not hold: kept, npm would warn about
  // an install script on every install.
  it('carries no scripts, so installing it runs and warns about none', () => {
    expect(packed.manifest).not.toHaveProperty('scripts');
    expect(packed.installLog).not.toMatch(/install-scripts|install script/i);
  });

  it('holds the builds, their declarations, the README and the license; no sources', () => {
    const files = [...packed.files].sort();
    expect(files).toEqual(expect.arrayContaining(['LICENSE', 'README.md', 'package.json']));
    for (const format of ['esm', 'cjs'])
      for (const name of ['client', 'change-feed', 'iterate-clients', 'retrying-fetch', 'schema'])
        expect(files).toEqual(
          expect.arrayContaining([`dist/${format}/${name}.js`, `dist/${format}/${name}.d.ts`]),
        );
    expect(
      files.filter((file) => !/^(dist\/|LICENSE$|README\.md$|package\.json$)/.test(file)),
    ).toEqual([]);
  });

  it('is versioned with the API document: its major.minor is info.version', () => {
    const { version } = JSON.parse(readFileSync(join(PACKAGE, 'package.json'), 'utf8'));
    const document = JSON.parse(readFileSync(join(ROOT, 'openapi.json'), 'utf8'));
    expect(version.split('.').slice(0, 2).join('.')).toBe(document.info.version);
  });

  it('as an ES module compiled with tsc --strict: a typed list, a cursor walk, a feed to its end', async () => {
    const seen = await runConsumer('dist/consumer.js');
    expect(seen.links).toEqual(['link-a', 'link-b']);
    expect(seen.pages).toEqual([
      ['client-1', 'client-3'],
      ['client-4', 'client-5'],
    ]);
    expect(seen.fed).toEqual(CLIENTS.map((client) => client.id));
    expect(seen.cursor).toMatch(/^\S+$/);
  });

  it('as CommonJS: require() of the package and a subpath', async () => {
    expect(await runConsumer('consumer.cjs')).toEqual({
      link: 'link-a',
      clients: ['client-1', 'client-2', 'client-3', 'client-4', 'client-5'],
    });
  });
});
