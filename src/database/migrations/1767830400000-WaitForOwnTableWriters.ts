import { MigrationInterface, QueryRunner } from 'typeorm';
import { oldestWriterStartFunction } from './1767657600000-ReadWritersPrivately';
import { WRITES_THE_FEEDS_TABLES } from './1767744000000-WaitForTableWritersOnly';

/**
 * The change feeds' safe point waits for writers of the feeds' own tables, matched by identity:
 * by name, any role allowed a temporary table could create `links`, write to it and leave the
 * transaction open, holding both feeds back for as long as it liked. The names are qualified
 * here, where the migrations resolve them, because the function reads with its own search_path;
 * a regclass constant keeps the table's OID in the session's cached plan.
 */
export class WaitForOwnTableWriters1767830400000 implements MigrationInterface {
  name = 'WaitForOwnTableWriters1767830400000';

  async up(queryRunner: QueryRunner): Promise<void> {
    const [{ tables }] = (await queryRunner.query(`
      SELECT string_agg(quote_literal(format('%I.%I', n.nspname, c.relname)) || '::regclass', ', ')
               AS tables
      FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
      WHERE c.oid IN ('links'::regclass, 'clients'::regclass)`)) as { tables: string }[];
    await queryRunner.query(oldestWriterStartFunction(ownTableWriters(tables)));
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(oldestWriterStartFunction(WRITES_THE_FEEDS_TABLES));
  }
}

/** Sessions holding ROW EXCLUSIVE on one of `tables` (regclass constants) in this database. */
const ownTableWriters = (tables: string) => `
  AND pid IN (SELECT pid FROM pg_locks
              WHERE locktype = 'relation' AND mode = 'RowExclusiveLock' AND granted
                AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
                AND relation IN (${tables}))`;
