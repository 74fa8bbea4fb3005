import { Module } from '@nestjs/common';
import { ThrottlerModule } from '@nestjs/throttler';
import { Gauge, Registry } from 'prom-client';
import { ApiKeysModule } from '../api-keys/api-keys.module';
import { RateLimitEnv } from '../config/rate-limit.env';
import { MemoryThrottlerStorage } from './memory-throttler.storage';
import { RATE_LIMIT_STORAGE } from './rate-limit.guard';
import { RedisThrottlerStorage } from './redis-throttler.storage';

/** Rate limits: one window, counted in memory, or in Redis when REDIS_URL is set (in memory while it is down). */
@Module({
  imports: [
    ApiKeysModule,
    ThrottlerModule.forRootAsync({
      inject: [RateLimitEnv],
      // RateLimitGuard passes the limit (per key or per IP) and the window itself: of this one
      // throttler only its name, `default`, is read.
      useFactory: (env: RateLimitEnv) => ({
        throttlers: [{ ttl: env.RATE_LIMIT_WINDOW_MS, limit: env.RATE_LIMIT_PER_KEY }],
      }),
    }),
  ],
  providers: [
    {
      provide: RATE_LIMIT_STORAGE,
      // Registry: provided globally by MetricsModule.
      inject: [RateLimitEnv, Registry],
      useFactory: ({ REDIS_URL, REDIS_KEY_PREFIX }: RateLimitEnv, registry: Registry) => {
        if (!REDIS_URL) return new MemoryThrottlerStorage();
        const available = new Gauge({
          name: 'rate_limit_redis_available',
          help: '1 while rate limits are counted in Redis; 0 while each process counts alone',
          registers: [registry],
        });
        return new RedisThrottlerStorage(REDIS_URL, REDIS_KEY_PREFIX, (isAvailable) =>
          available.set(isAvailable ? 1 : 0),
        );
      },
    },
  ],
  exports: [ThrottlerModule, RATE_LIMIT_STORAGE, ApiKeysModule],
})
export class RateLimitModule {}
