import { DataSource } from 'typeorm';

/**
 * Runs a read-only query where reads belong: on a read replica when DATABASE_REPLICA_URLS
 * configures some (TypeORM sends raw queries to the primary unless asked), else the primary.
 */
export async function readQuery<T>(
  dataSource: DataSource,
  text: string,
  params: unknown[],
): Promise<T> {
  const runner = dataSource.createQueryRunner(dataSource.defaultReplicationModeForReads());
  try {
    return (await runner.query(text, params)) as T;
  } finally {
    await runner.release();
  }
}
