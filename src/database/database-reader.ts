import { Injectable, ServiceUnavailableException } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { DataSource } from 'typeorm';
import { Env } from '../config/env';

/**
 * How the API reads: read-only queries where reads belong — a read replica when
 * DATABASE_REPLICA_URLS configures some (TypeORM sends raw queries to the primary unless
 * asked), else the primary — each within DATABASE_TIMEOUT_MS.
 */
@Injectable()
export class DatabaseReader {
  private readonly deadlineMs: number;

  constructor(
    private readonly dataSource: DataSource,
    config: ConfigService<Env, true>,
  ) {
    this.deadlineMs = config.get('DATABASE_TIMEOUT_MS');
  }

  /**
   * CONTRACT §5: the wait for a pooled connection and the query together never exceed
   * DATABASE_TIMEOUT_MS, whatever the pool's queue; past it the caller gets a 503. A query
   * given up on still releases its connection, and statement_timeout cuts it in the database.
   */
  query<T>(text: string, params: unknown[]): Promise<T> {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(
        () => reject(new ServiceUnavailableException('The database is unavailable; retry later')),
        this.deadlineMs,
      );
    });
    return Promise.race([this.run<T>(text, params), deadline]).finally(() => clearTimeout(timer));
  }

  private async run<T>(text: string, params: unknown[]): Promise<T> {
    const runner = this.dataSource.createQueryRunner(
      this.dataSource.defaultReplicationModeForReads(),
    );
    try {
      return (await runner.query(text, params)) as T;
    } finally {
      await runner.release();
    }
  }
}
