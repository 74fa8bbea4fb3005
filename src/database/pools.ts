import type { Pool, PoolClient, PoolConfig } from 'pg';
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

  /** The primary pool's connection settings. */
  get primaryOptions(): PoolConfig {
    return (this.driver.master as Pool & { options: PoolConfig }).options;
  }

  get replicas(): (Pool & { options: PoolConfig })[] {
    return (this.driver.slaves ?? []) as (Pool & { options: PoolConfig })[];
  }

  /**
   * A connection to the primary, or where reads belong: a replica when some are configured,
   * else the primary.
   */
  async connection(target: 'primary' | 'read'): Promise<[PoolClient, (error?: unknown) => void]> {
    const [connection, release] = await (target === 'read' &&
    this.dataSource.defaultReplicationModeForReads() === 'slave'
      ? this.driver.obtainSlaveConnection()
      : this.driver.obtainMasterConnection());
    return [connection as PoolClient, release as (error?: unknown) => void];
  }
}
