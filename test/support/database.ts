import { DatabaseEnv } from '../../src/config/database.env';
import { DatabaseReader } from '../../src/database/database-reader';
import { DatabasePools } from '../../src/database/pools';
import { testClient } from './pg-client';
import { DataSource, EntityManager } from 'typeorm';
import { standaloneDataSource } from '../../src/standalone-data-source';

function databaseName(): string {
  return new URL(process.env.DATABASE_URL as string).pathname.slice(1);
}

/** One statement on the test server itself (databases, roles), its connection then closed. */
export async function onTestServer(sql: string): Promise<void> {
  const client = testClient({ connectionString: process.env.TEST_SERVER_URL });
  await client.connect();
  try {
    await client.query(sql);
  } finally {
    await client.end();
  }
}

/** Creates this suite's database and applies the real migrations; returns a DataSource to it. */
export async function createSuiteDatabase(): Promise<DataSource> {
  await onTestServer(`CREATE DATABASE "${databaseName()}"`);
  const dataSource = standaloneDataSource({
    url: process.env.DATABASE_URL as string,
    timeoutMs: 10000,
  });
  await dataSource.initialize();
  await dataSource.runMigrations();
  return dataSource;
}

/**
 * A suite's bulk load, in one transaction without the suite connection's statement timeout:
 * loading the rows is setup, and a large insert on a slow shared machine has run past 10 s.
 */
export function bulkLoad(
  dataSource: DataSource,
  load: (manager: EntityManager) => Promise<unknown>,
): Promise<void> {
  return dataSource.transaction(async (manager) => {
    await manager.query('SET LOCAL statement_timeout = 0');
    await load(manager);
  });
}

export async function dropSuiteDatabase(dataSource: DataSource): Promise<void> {
  await dataSource.destroy();
  await onTestServer(`DROP DATABASE IF EXISTS "${databaseName()}" WITH (FORCE)`);
}

/** The app's DatabaseReader over a suite's data source, with the default DATABASE_TIMEOUT_MS. */
export function databaseReader(dataSource: DataSource): DatabaseReader {
  const env = { DATABASE_TIMEOUT_MS: 5000, DATABASE_REPLICA_URLS: [] } as unknown as DatabaseEnv;
  return new DatabaseReader(new DatabasePools(dataSource, env), env);
}

/** A managed key limited to `links` (its row in api_keys, theirs in api_key_links); its id. */
export async function insertLinkScopedKey(
  dataSource: DataSource,
  name: string,
  links: string[],
): Promise<string> {
  const [{ id }] = await dataSource.query(
    `INSERT INTO api_keys (name, prefix, key_hash, is_link_scoped)
     VALUES ($1, 'lcapi_' || $1, sha256(convert_to($1, 'UTF8')), true) RETURNING id`,
    [name],
  );
  await dataSource.query(
    'INSERT INTO api_key_links (key_id, link_id) SELECT $1, unnest($2::text[])',
    [id, links],
  );
  return id;
}
