import { DataSource } from 'typeorm';

/**
 * EXPLAIN's JSON plan tree for a query prepared with `plan_cache_mode = force_generic_plan`: the
 * plan PostgreSQL makes for any parameters, the one a prepared statement may keep. Run on a
 * connection of its own, left as it was found.
 */
export async function genericPlanOf<Node>(
  dataSource: DataSource,
  { text, params }: { text: string; params: unknown[] },
): Promise<Node> {
  const runner = dataSource.createQueryRunner();
  try {
    await runner.query('SET plan_cache_mode = force_generic_plan');
    await runner.query(`PREPARE generic_plan AS ${text}`);
    try {
      // EXECUTE takes its values as literals, coerced to the statement's parameter types.
      const values = params.map((value) => `'${String(value).replaceAll("'", "''")}'`);
      const [row] = await runner.query(
        `EXPLAIN (FORMAT JSON) EXECUTE generic_plan(${values.join()})`,
      );
      return row['QUERY PLAN'][0].Plan as Node;
    } finally {
      await runner.query('DEALLOCATE generic_plan');
    }
  } finally {
    await runner.query('RESET plan_cache_mode');
    await runner.release();
  }
}
