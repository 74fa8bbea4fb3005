import { Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { PoolConfig } from 'pg';
import { DataSource } from 'typeorm';
import { Env } from '../config/env';
import { DatabasePing } from './database-ping';

/** One DatabasePing per database the requests use: the primary, then each replica. */
@Injectable()
export class DatabasePings implements OnApplicationBootstrap, OnApplicationShutdown {
  readonly all: DatabasePing[];

  constructor(dataSource: DataSource, config: ConfigService<Env, true>) {
    const timeout = config.get('HEALTH_TIMEOUT_MS', { infer: true });
    // TypeORM's PostgresDriver keeps the pg Pools as `master` and `slaves` (the replicas); a
    // ping connects with the same settings (address, credentials, TLS) as its pool.
    const driver = dataSource.driver as unknown as {
      master: { options: PoolConfig };
      slaves?: { options: PoolConfig }[];
    };
    this.all = [
      new DatabasePing('database', driver.master.options, timeout),
      ...(driver.slaves ?? []).map(
        (pool, index) => new DatabasePing(`replica-${index}`, pool.options, timeout),
      ),
    ];
  }

  /** Opens the pings' connections at boot, so the first probe does not wait for one. */
  onApplicationBootstrap(): void {
    for (const ping of this.all) void ping.check();
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all(this.all.map((ping) => ping.close()));
  }
}
