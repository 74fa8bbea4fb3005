// Packs the client (its prepare script builds it first) into a new temporary folder and prints
// the tarball's path: `npm install <that path>` in any project.
import { execFileSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const destination = mkdtempSync(join(tmpdir(), 'links-clients-client-'));
const packed = execFileSync('npm', ['pack', '--json', '--pack-destination', destination], {
  cwd: dirname(fileURLToPath(import.meta.url)),
  encoding: 'utf8',
  stdio: ['ignore', 'pipe', 'inherit'],
});
console.log(join(destination, JSON.parse(packed)[0].filename));
