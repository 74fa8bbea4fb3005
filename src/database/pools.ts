import type { Pool, PoolClient } from 'pg';
import { DataSource } from 'typeorm';
import { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';

/**
 * The pg pools behind a DataSource. TypeORM's PostgresDriver keeps them as `master` and
 * `slaves` (read replicas) and types them `any`; this is the one place that reaches in.
 */
export class DatabasePools {
  private readonly driver: PostgresDriver;

  constructor(private readonly dataSource: DataSource) {
    this.driver = dataSource.driver as PostgresDriver;
  }

  get primary(): Pool | undefined {
    return this.driver.master as Pool | undefined;
  }

  get replicas(): Pool[] {
    return (this.driver.slaves ?? []) as Pool[];
  }

  /** A connection where reads belong: a replica when some are configured, else the primary. */
  async readConnection(): Promise<[PoolClient, (error?: unknown) => void]> {
    const [connection, release] = await (this.dataSource.defaultReplicationModeForReads() ===
    'slave'
      ? this.driver.obtainSlaveConnection()
      : this.driver.obtainMasterConnection());
    return [connection as PoolClient, release as (error?: unknown) => void];
  }
}
