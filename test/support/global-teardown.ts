import { rmSync } from 'node:fs';
import type { EmbeddedDatabase } from '../../src/dev/embedded-database';

/** Stops the embedded database and removes everything global-setup.ts created. */
export default async function globalTeardown(): Promise<void> {
  await (globalThis as { embeddedDatabase?: EmbeddedDatabase }).embeddedDatabase?.stop();
  for (const dir of [process.env.TEST_EMBEDDED_DATA_DIR, process.env.TEST_RUN_DIR]) {
    if (dir) rmSync(dir, { recursive: true, force: true });
  }
}
