import { Injectable } from '@nestjs/common';
import type { Pool, PoolClient, PoolConfig } from 'pg';
import { DataSource } from 'typeorm';
import { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';

/** Hands a connection back to its pool; given an error, the pool drops the connection. */
export type Release = (error?: Error) => void;

/**
 * The pg pools behind a DataSource. TypeORM's PostgresDriver keeps them as `master` and
 * `slaves` (read replicas) and types them `any`; this is the one place that reaches in.
 */
@Injectable()
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
   * Checks out a connection to the primary, or where reads belong: a replica at random when
   * some are configured, else the primary. In callback form, as pg's pools answer: no promise
   * hops between the pool and the query.
   */
  connect(
    target: 'primary' | 'read',
    callback: (error: Error | undefined, connection?: PoolClient, release?: Release) => void,
  ): void {
    const replicas = this.replicas;
    const pool =
      target === 'read' &&
      replicas.length > 0 &&
      this.dataSource.defaultReplicationModeForReads() === 'slave'
        ? replicas[Math.floor(Math.random() * replicas.length)]
        : this.primary;
    if (pool) pool.connect(callback);
    // The pools are gone (the app is shutting down): SQLSTATE 08003, connection does not exist,
    // which every check of a database error reads as the database being unavailable.
    else callback(Object.assign(new Error('The database is not connected'), { code: '08003' }));
  }
}
