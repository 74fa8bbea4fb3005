import { Module } from '@nestjs/common';
import { ThrottlerModule } from '@nestjs/throttler';
import { ApiKeysModule } from '../api-keys/api-keys.module';
import { RateLimitEnv } from '../config/rate-limit.env';
import { MemoryThrottlerStorage } from './memory-throttler.storage';
import { RATE_LIMIT_STORAGE } from './rate-limit.guard';
import { RedisThrottlerStorage } from './redis-throttler.storage';

/** Rate limits: one window, in memory, or in Redis when REDIS_URL is set. */
@Module({
  imports: [
    ApiKeysModule,
    ThrottlerModule.forRootAsync({
      inject: [RateLimitEnv],
      useFactory: (env: RateLimitEnv) => ({
        throttlers: [{ ttl: env.RATE_LIMIT_WINDOW_MS, limit: env.RATE_LIMIT_PER_KEY }],
      }),
    }),
  ],
  providers: [
    {
      provide: RATE_LIMIT_STORAGE,
      inject: [RateLimitEnv],
      useFactory: ({ REDIS_URL, REDIS_KEY_PREFIX }: RateLimitEnv) =>
        REDIS_URL
          ? new RedisThrottlerStorage(REDIS_URL, REDIS_KEY_PREFIX)
          : new MemoryThrottlerStorage(),
    },
  ],
  exports: [ThrottlerModule, RATE_LIMIT_STORAGE, ApiKeysModule],
})
export class RateLimitModule {}
