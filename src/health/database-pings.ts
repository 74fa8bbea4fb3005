import { Injectable, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { OperationsEnv } from '../config/operations.env';
import { DatabasePools } from '../database/pools';
import { DatabasePing } from './database-ping';

/**
 * The readiness pings: the primary's. Reads can go to the primary whatever the replicas do
 * (ReplicaChecks takes one that stops answering out of rotation), so only the primary's answer
 * decides whether a pod is worth sending traffic to.
 */
@Injectable()
export class DatabasePings implements OnApplicationBootstrap, OnApplicationShutdown {
  readonly all: DatabasePing[];

  constructor(pools: DatabasePools, { HEALTH_TIMEOUT_MS: timeout }: OperationsEnv) {
    // A ping connects with the same settings (address, credentials, TLS) as its pool.
    // Without the pool's check that it is a primary: a standby at the primary's address (a
    // failover behind a name) is the feeds' 503 for a few seconds, not every pod unready.
    const { verify: _standbyCheck, ...options } = pools.primaryOptions as { verify?: unknown };
    this.all = [new DatabasePing('database', options, timeout)];
  }

  /** Opens the pings' connections at boot, so the first probe does not wait for one. */
  onApplicationBootstrap(): void {
    for (const ping of this.all) void ping.check();
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all(this.all.map((ping) => ping.close()));
  }
}
