import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startEmbeddedDatabase } from '../../src/dev/embedded-database';

/**
 * Points the run at a PostgreSQL server: DATABASE_URL when set, otherwise a throw-away
 * embedded one. Each suite then creates its own database on it (suite-env.ts, database.ts).
 */
export default async function globalSetup(): Promise<void> {
  if (process.env.DATABASE_URL) {
    process.env.TEST_SERVER_URL = process.env.DATABASE_URL;
    return;
  }
  const embedded = await startEmbeddedDatabase(mkdtempSync(join(tmpdir(), 'links-clients-test-')));
  process.env.TEST_SERVER_URL = embedded.url;
  (globalThis as { embeddedDatabase?: typeof embedded }).embeddedDatabase = embedded;
}
