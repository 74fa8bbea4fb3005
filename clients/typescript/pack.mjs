// Builds the client and packs it into a new temporary folder, printing the tarball's path:
// `npm install <that path>` in any project. The tarball's package.json carries no scripts:
// its `prepare` builds from sources the tarball does not hold, and npm would warn about it as
// an install script on every install.
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
execFileSync(process.execPath, [join(here, 'build.mjs')], { stdio: 'inherit' });
const staged = mkdtempSync(join(tmpdir(), 'links-clients-client-staged-'));
const { scripts: _scripts, ...manifest } = JSON.parse(readFileSync(join(here, 'package.json')));
writeFileSync(join(staged, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
for (const entry of manifest.files)
  cpSync(join(here, entry), join(staged, entry), { recursive: true });

const destination = mkdtempSync(join(tmpdir(), 'links-clients-client-'));
const packed = execFileSync('npm', ['pack', '--json', '--pack-destination', destination], {
  cwd: staged,
  encoding: 'utf8',
  stdio: ['ignore', 'pipe', 'inherit'],
});
console.log(join(destination, JSON.parse(packed)[0].filename));
