import { Module } from '@nestjs/common';
import { Gauge, Registry } from 'prom-client';
import { RedisEnv } from '../config/redis.env';

/** The SharedRedis when REDIS_URL is set, else null: each process then works alone. */
export const SHARED_REDIS = Symbol('SHARED_REDIS');

/** One Redis connection and breaker for every module that shares state across replicas. */
@Module({
  providers: [
    {
      provide: SHARED_REDIS,
      // Registry: provided globally by MetricsModule.
      inject: [RedisEnv, Registry],
      useFactory: ({ REDIS_URL, REDIS_KEY_PREFIX }: RedisEnv, registry: Registry) => {
        if (!REDIS_URL) return null;
        // Loaded only when configured: ioredis (with the breaker) costs each process ~5 MB of
        // memory at rest, used or not.
        // eslint-disable-next-line @typescript-eslint/no-require-imports
        const { SharedRedis } = require('./shared-redis') as typeof import('./shared-redis');
        const available = new Gauge({
          name: 'rate_limit_redis_available',
          help: '1 while rate limits and list totals are shared in Redis; 0 while each process counts alone',
          registers: [registry],
        });
        return new SharedRedis(REDIS_URL, REDIS_KEY_PREFIX, (isAvailable) =>
          available.set(isAvailable ? 1 : 0),
        );
      },
    },
  ],
  exports: [SHARED_REDIS],
})
export class RedisModule {}
