import { Module } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { ThrottlerModule } from '@nestjs/throttler';
import { ApiKeysModule } from '../api-keys/api-keys.module';
import { Env } from '../config/env';
import { MemoryThrottlerStorage } from './memory-throttler.storage';
import { RATE_LIMIT_STORAGE } from './rate-limit.guard';
import { RedisThrottlerStorage } from './redis-throttler.storage';

/** Rate limits: one window, in memory, or in Redis when REDIS_URL is set. */
@Module({
  imports: [
    ApiKeysModule,
    ThrottlerModule.forRootAsync({
      inject: [ConfigService],
      useFactory: (config: ConfigService<Env, true>) => ({
        throttlers: [
          { ttl: config.get('RATE_LIMIT_WINDOW_MS'), limit: config.get('RATE_LIMIT_PER_KEY') },
        ],
      }),
    }),
  ],
  providers: [
    {
      provide: RATE_LIMIT_STORAGE,
      inject: [ConfigService],
      useFactory: (config: ConfigService<Env, true>) => {
        const url = config.get('REDIS_URL', { infer: true });
        return url
          ? new RedisThrottlerStorage(url, config.get('REDIS_KEY_PREFIX'))
          : new MemoryThrottlerStorage();
      },
    },
  ],
  exports: [ThrottlerModule, RATE_LIMIT_STORAGE, ApiKeysModule],
})
export class RateLimitModule {}
