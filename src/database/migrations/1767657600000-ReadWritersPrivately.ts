import { MigrationInterface, QueryRunner } from 'typeorm';

/**
 * The change feeds' safe point needs the start of every transaction writing to this database,
 * whoever runs it (docs/api.md "Change feeds"). pg_stat_activity hides it for other roles'
 * sessions unless the reader has pg_read_all_stats, which would also show the API every
 * session's SQL text, on every database of the server. This function, owned by the schema's
 * owner (who holds pg_read_all_stats instead: deploy/sql/roles.sql) and run with its rights,
 * returns that start alone: the oldest writer's, -infinity while one's start is unknown (a
 * session it may not see, a prepared transaction), null when none writes.
 *
 * PL/pgSQL, not SQL: PostgreSQL cannot inline a SECURITY DEFINER function, and plans a SQL
 * one's query at every call, which costs a feed request many times the query itself; PL/pgSQL
 * keeps the plan for the session.
 */
export class ReadWritersPrivately1767657600000 implements MigrationInterface {
  name = 'ReadWritersPrivately1767657600000';

  async up(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(oldestWriterStartFunction());
    // Only the roles deploy/sql/roles.sql grants it to may call it.
    await queryRunner.query(`REVOKE ALL ON FUNCTION oldest_writer_start() FROM PUBLIC`);
  }

  async down(queryRunner: QueryRunner): Promise<void> {
    await queryRunner.query(`DROP FUNCTION IF EXISTS oldest_writer_start()`);
  }
}

/** The function's definition; `writers` narrows the sessions it waits for (a later migration). */
export const oldestWriterStartFunction = (writers = '') => `
  CREATE OR REPLACE FUNCTION oldest_writer_start() RETURNS timestamptz
  LANGUAGE plpgsql STABLE SECURITY DEFINER SET search_path = pg_catalog, pg_temp AS $$
  BEGIN
    RETURN (
      SELECT CASE
          WHEN EXISTS (SELECT FROM pg_prepared_xacts WHERE database = current_database())
            OR bool_or(xact_start IS NULL)
            THEN '-infinity'::timestamptz
          ELSE min(xact_start) END
      FROM pg_stat_activity WHERE backend_xid IS NOT NULL AND datname = current_database()
      ${writers});
  END $$`;
