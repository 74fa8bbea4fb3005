import { QueryRunner } from 'typeorm';

/**
 * Builds indexes, then drops others, each CONCURRENTLY (writers are not blocked; hence the
 * migrations that call this run outside a transaction), on tables of any size:
 * - without a statement timeout: the migrations' connection has the API's (DATABASE_TIMEOUT_MS,
 *   a few seconds), and a build on millions of rows takes minutes, as may its wait for older
 *   transactions to end;
 * - over the leftover of a build that failed (cancelled, out of disk), an invalid index under
 *   its name, which `IF NOT EXISTS` would take for built: it is dropped and built again, so a
 *   migration run again after a failure never drops what it replaces for an index that does
 *   not work.
 *
 * `created` maps each index's name to what follows `ON`: `table (columns) …`.
 */
export async function replaceIndexesConcurrently(
  queryRunner: QueryRunner,
  created: Record<string, string>,
  dropped: string[],
): Promise<void> {
  await queryRunner.query('SET statement_timeout = 0');
  try {
    for (const [name, definition] of Object.entries(created)) {
      const [leftover] = await queryRunner.query(
        'SELECT 1 FROM pg_index WHERE indexrelid = to_regclass($1) AND NOT indisvalid',
        [name],
      );
      if (leftover) await queryRunner.query(`DROP INDEX CONCURRENTLY ${name}`);
      await queryRunner.query(`CREATE INDEX CONCURRENTLY IF NOT EXISTS ${name} ON ${definition}`);
    }
    for (const name of dropped) {
      await queryRunner.query(`DROP INDEX CONCURRENTLY IF EXISTS ${name}`);
    }
  } finally {
    await queryRunner.query('RESET statement_timeout');
  }
}
