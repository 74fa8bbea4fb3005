import { Module } from '@nestjs/common';
import { ThrottlerModule } from '@nestjs/throttler';
import { ApiKeysModule } from '../api-keys/api-keys.module';
import { RateLimitEnv } from '../config/rate-limit.env';
import { RedisModule, SHARED_REDIS } from '../redis/redis.module';
import { SharedRedis } from '../redis/shared-redis';
import { MemoryThrottlerStorage } from './memory-throttler.storage';
import { RATE_LIMIT_STORAGE } from './rate-limit.guard';
import { RedisThrottlerStorage } from './redis-throttler.storage';

/** Rate limits: one window, counted in memory, or in Redis when REDIS_URL is set (in memory while it is down). */
@Module({
  imports: [
    ApiKeysModule,
    RedisModule,
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
      inject: [SHARED_REDIS],
      useFactory: (redis: SharedRedis | null) =>
        redis ? new RedisThrottlerStorage(redis) : new MemoryThrottlerStorage(),
    },
  ],
  exports: [ThrottlerModule, RATE_LIMIT_STORAGE, ApiKeysModule],
})
export class RateLimitModule {}
