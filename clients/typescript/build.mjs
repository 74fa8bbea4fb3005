// Builds dist/esm (ES modules) and dist/cjs (CommonJS) from src/, each with its declarations,
// using the TypeScript compiler; each folder's package.json tells Node which format it holds.
import { execFileSync } from 'node:child_process';
import { rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');
rmSync(join(here, 'dist'), { recursive: true, force: true });
for (const [folder, module, type] of [
  ['esm', 'es2022', 'module'],
  ['cjs', 'commonjs', 'commonjs'],
]) {
  const outDir = join(here, 'dist', folder);
  const project = join(here, 'tsconfig.json');
  execFileSync(process.execPath, [tsc, '-p', project, '--module', module, '--outDir', outDir], {
    stdio: 'inherit',
  });
  writeFileSync(join(outDir, 'package.json'), `${JSON.stringify({ type })}\n`);
}
