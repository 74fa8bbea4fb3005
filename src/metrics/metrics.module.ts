import { Module } from '@nestjs/common';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { HttpMetrics } from './http-metrics';
import { MetricsController } from './metrics.controller';
import { PoolMetrics } from './pool-metrics';

@Module({
  providers: [
    {
      // One registry per app instance, never prom-client's global one: a second app in the
      // same process (the tests) would otherwise fail with "already been registered".
      provide: Registry,
      useFactory: () => {
        const registry = new Registry();
        collectDefaultMetrics({ register: registry });
        return registry;
      },
    },
    HttpMetrics,
    PoolMetrics,
  ],
  controllers: [MetricsController],
  // The registry too, for modules that report their own state (the rate limiter's Redis).
  exports: [HttpMetrics, Registry],
})
export class MetricsModule {}
