import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmbeddedDatabase } from '../../src/dev/embedded-database';
import { createRunDir } from './run-dir';

/**
 * Points the run at a PostgreSQL server: DATABASE_URL when set, otherwise a throw-away
 * embedded one. Each suite then creates its own database on it (suite-env.ts, database.ts).
 * Also creates the run's scratch directory (run-dir.ts). global-teardown.ts removes both.
 */
export default async function globalSetup(): Promise<void> {
  process.env.TEST_RUN_DIR = createRunDir();
  if (process.env.DATABASE_URL) {
    process.env.TEST_SERVER_URL = process.env.DATABASE_URL;
    return;
  }
  const dataDir = mkdtempSync(join(tmpdir(), 'links-clients-test-'));
  process.env.TEST_EMBEDDED_DATA_DIR = dataDir;
  const embedded = await startEmbeddedDatabase(dataDir);
  process.env.TEST_SERVER_URL = embedded.url;
  (globalThis as { embeddedDatabase?: typeof embedded }).embeddedDatabase = embedded;
}
