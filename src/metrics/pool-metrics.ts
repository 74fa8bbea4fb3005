import { Injectable } from '@nestjs/common';
import { Gauge, Registry } from 'prom-client';
import type { Pool } from 'pg';
import { DatabasePools } from '../database/pools';

/** The database connection pools, read at each scrape. */
@Injectable()
export class PoolMetrics {
  constructor(registry: Registry, databasePools: DatabasePools) {
    const pools = () => [
      ['primary', databasePools.primary] as const,
      ...databasePools.replicas.map((pool, index) => [`replica-${index}`, pool] as const),
    ];
    const gauge = (name: string, help: string, read: (pool: Pool) => number) =>
      new Gauge({
        name,
        help,
        labelNames: ['pool'],
        registers: [registry],
        collect() {
          this.reset();
          for (const [pool, stats] of pools()) if (stats) this.set({ pool }, read(stats));
        },
      });
    gauge(
      'db_pool_connections_in_use',
      'Connections checked out of the pool',
      (pool) => pool.totalCount - pool.idleCount,
    );
    gauge(
      'db_pool_connections_idle',
      'Open connections waiting in the pool',
      (pool) => pool.idleCount,
    );
    gauge(
      'db_pool_requests_waiting',
      'Queries waiting for a free connection',
      (pool) => pool.waitingCount,
    );
  }
}
