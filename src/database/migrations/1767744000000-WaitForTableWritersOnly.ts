import { MigrationInterface, QueryRunner } from 'typeorm';
import { oldestWriterStartFunction } from './1767657600000-ReadWritersPrivately';

/**
 * The change feeds' safe point waits only for the transactions that write links or clients. A
 * transaction id alone is also taken by a report filling its own or a temporary table, by
 * SELECT … FOR UPDATE, or by a write to any other table of the database, none of which can
 * stamp a row of the feeds, yet each held both feeds back for as long as it ran. A transaction
 * writing either table holds ROW EXCLUSIVE on it from before its first stamp (INSERT, UPDATE,
 * MERGE, COPY and logical replication take it when they open the table) until it ends, and
 * pg_locks shows every session's locks to any role. Tables of those names in other schemas
 * count too: waiting for them is late, never a gap.
 */
export const WRITES_THE_FEEDS_TABLES = `
  AND pid IN (SELECT pid FROM pg_locks
              WHERE locktype = 'relation' AND mode = 'RowExclusiveLock' AND granted
                AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
                AND relation IN (SELECT oid FROM pg_class WHERE relname IN ('links', 'clients')))`;

export class WaitForTableWritersOnly1767744000000 implements MigrationInterface {
  name = 'WaitForTableWritersOnly1767744000000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(oldestWriterStartFunction(WRITES_THE_FEEDS_TABLES));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(oldestWriterStartFunction());
  }
}
