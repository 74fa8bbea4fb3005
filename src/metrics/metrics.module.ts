import { Global, Module } from '@nestjs/common';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { DatabaseModule } from '../database/database.module';
import { HttpMetrics } from './http-metrics';
import { registerMemoryLimit } from './memory-limit';
import { MetricsServer } from './metrics-server';
import { PoolMetrics } from './pool-metrics';

// Global: the registry serves modules that report their own state (the rate limiter's Redis).
@Global()
@Module({
  imports: [DatabaseModule],
  providers: [
    {
      // One registry per app instance, never prom-client's global one: a second app in the
      // same process (the tests) would otherwise fail with "already been registered".
      provide: Registry,
      useFactory: () => {
        const registry = new Registry();
        collectDefaultMetrics({ register: registry });
        registerMemoryLimit(registry);
        return registry;
      },
    },
    HttpMetrics,
    PoolMetrics,
    MetricsServer,
  ],
  exports: [HttpMetrics, Registry],
})
export class MetricsModule {}
