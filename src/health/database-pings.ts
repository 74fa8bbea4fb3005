import { Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { OperationsEnv } from '../config/operations.env';
import { DatabasePools } from '../database/pools';
import { DatabasePing } from './database-ping';

/** One DatabasePing per database the requests use: the primary, then each replica. */
@Injectable()
export class DatabasePings implements OnApplicationBootstrap, OnApplicationShutdown {
  readonly all: DatabasePing[];

  constructor(pools: DatabasePools, { HEALTH_TIMEOUT_MS: timeout }: OperationsEnv) {
    // A ping connects with the same settings (address, credentials, TLS) as its pool.
    this.all = [
      new DatabasePing('database', pools.primaryOptions, timeout),
      ...pools.replicas.map(
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
