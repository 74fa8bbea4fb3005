import { DataSource } from 'typeorm';
import { dataSourceOptions } from '../../src/database/data-source';
import { bulkLoad, createSuiteDatabase, dropSuiteDatabase } from '../support/database';
import { testClient } from '../support/pg-client';
import { waitFor } from '../support/wait-for';

const ROWS = 300_000;
// The migrations' per-statement deadline here: far above what any other statement of theirs
// takes on a loaded machine, and outlasted by an index build the test holds (below).
const DEADLINE_MS = 2000;
// The tables' first indexes, what the index migrations build, and what the first of them replaces.
const TABLES = ['links_created_at_id_idx'];
const BUILT = [
  ...TABLES,
  'clients_list_idx',
  'clients_link_page_idx',
  'clients_status_page_idx',
  'clients_deleted_page_idx',
  'links_changes_idx',
  'clients_changes_idx',
  'clients_link_changes_idx',
];
const FIRST = [
  ...TABLES,
  'clients_created_at_id_idx',
  'clients_link_id_created_at_id_idx',
  'clients_status_created_at_id_idx',
];
const validIndexes = (names: string[]) => Object.fromEntries(names.map((name) => [name, true]));

// docs/operations.md, Production path: the migrations build their indexes CONCURRENTLY on a table
// that may already hold millions of rows, through a connection that carries the API's
// per-query deadline (DATABASE_TIMEOUT_MS), and the migration Job retries a run that failed.
describe('Index migrations on a populated table', () => {
  let dataSource: DataSource;
  // A connection whose statement_timeout is far shorter than an index build on ROWS clients.
  let shortDeadline: DataSource;

  beforeAll(async () => {
    dataSource = await createSuiteDatabase();
    await dataSource.query(
      `INSERT INTO links (id) SELECT 'link-' || i FROM generate_series(1, 100) AS i`,
    );
    await bulkLoad(dataSource, async (manager) => {
      await manager.query('SET LOCAL session_replication_role = replica');
      await manager.query(
        `INSERT INTO clients (id, link_id, is_deleted, status, created_at, updated_at)
         SELECT 'client-' || i, 'link-' || 1 + i % 100, i % 10 = 0,
                CASE WHEN i % 2 = 0 THEN 'new' ELSE 'connected' END,
                timestamptz '2024-01-01' + i * interval '1 minute', now()
         FROM generate_series(1, $1) AS i`,
        [ROWS],
      );
    });
    // Autovacuum, woken by the load, would hold a lock the migrations' trigger statements wait
    // for (up to deadlock_timeout, 1 s, before it yields).
    for (const table of ['links', 'clients']) {
      await dataSource.query(`ALTER TABLE ${table} SET (autovacuum_enabled = off)`);
      await dataSource.query(`VACUUM ANALYZE ${table}`);
    }
    // The migrations' connection with a deadline per statement, as DATABASE_TIMEOUT_MS sets it
    // (the connection itself gets the usual 10 s).
    const options = dataSourceOptions({
      url: process.env.DATABASE_URL as string,
      timeoutMs: 10_000,
    });
    shortDeadline = new DataSource({
      ...options,
      extra: { ...options.extra, statement_timeout: DEADLINE_MS },
    });
    await shortDeadline.initialize();
  }, 120_000);
  afterAll(async () => {
    await shortDeadline?.destroy();
    await dropSuiteDatabase(dataSource);
  });

  async function validity(): Promise<Record<string, boolean>> {
    const rows: { name: string; valid: boolean }[] = await dataSource.query(
      `SELECT c.relname AS name, i.indisvalid AS valid
       FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
       WHERE i.indrelid IN ('clients'::regclass, 'links'::regclass) AND NOT i.indisprimary`,
    );
    return Object.fromEntries(rows.map(({ name, valid }) => [name, valid]));
  }

  it('revert and run again past the API deadline, over an invalid index a failed build left', async () => {
    // Down to the tables and their first indexes: every migration after the first two (the
    // tables, the keys). (TypeORM's revert runs `down` in a transaction unless told otherwise.)
    const after = shortDeadline.migrations.length - 2;
    for (let n = 0; n < after; n++) await shortDeadline.undoLastMigration({ transaction: 'none' });
    expect(await validity()).toEqual(validIndexes(FIRST));

    // A concurrent build that fails once its index is in the catalog (cancelled, out of disk,
    // here a unique index over duplicates, which fails there every time) leaves it invalid.
    await expect(
      dataSource.query(
        `CREATE UNIQUE INDEX CONCURRENTLY clients_status_page_idx ON clients (status)`,
      ),
    ).rejects.toThrow(/could not create unique index/);
    expect(await validity()).toEqual({ ...validIndexes(FIRST), clients_status_page_idx: false });

    // A concurrent build waits for every older snapshot: this one holds the first build until
    // it has run twice the deadline (PostgreSQL's clock), however fast the machine builds.
    const holder = testClient({ connectionString: process.env.DATABASE_URL });
    await holder.connect();
    try {
      await holder.query('BEGIN ISOLATION LEVEL REPEATABLE READ');
      await holder.query('SELECT 1 FROM clients LIMIT 1');
      const heldPastTheDeadline = waitFor(
        async () => {
          const [{ n }] = await dataSource.query(
            `SELECT count(*)::int AS n FROM pg_stat_activity
             WHERE query LIKE 'CREATE%INDEX CONCURRENTLY%' AND state = 'active'
               AND now() - query_start > $1 * interval '1 millisecond'`,
            [2 * DEADLINE_MS],
          );
          return n > 0;
        },
        { what: 'an index build held past the deadline', timeoutMs: 60_000 },
      ).then(() => holder.query('COMMIT'));
      await shortDeadline.runMigrations({ transaction: 'each' });
      await heldPastTheDeadline;
    } finally {
      await holder.end();
    }
    expect(await validity()).toEqual(validIndexes(BUILT));
  }, 120_000);
});
