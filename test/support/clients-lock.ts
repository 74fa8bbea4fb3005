import { DataSource, QueryRunner } from 'typeorm';
import { waitFor } from './wait-for';

/** Holds every read of the clients table until released: requests on it stay in flight. */
export async function lockClients(dataSource: DataSource): Promise<QueryRunner> {
  const runner = dataSource.createQueryRunner();
  await runner.startTransaction();
  await runner.query('LOCK TABLE clients IN ACCESS EXCLUSIVE MODE');
  return runner;
}

export async function release(runner: QueryRunner): Promise<void> {
  await runner.commitTransaction();
  await runner.release();
}

/** Waits until `count` queries of this database wait on the lock: their requests are in flight. */
export const blockedQueries = (dataSource: DataSource, count: number) =>
  waitFor(
    async () => {
      const [{ waiting }] = await dataSource.query<{ waiting: number }[]>(
        `SELECT count(*)::int AS waiting FROM pg_stat_activity
         WHERE datname = current_database() AND wait_event_type = 'Lock'`,
      );
      return waiting >= count;
    },
    { what: `${count} queries waiting on the lock` },
  );
