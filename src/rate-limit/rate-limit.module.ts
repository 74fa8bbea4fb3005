import { Module } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { ThrottlerModule } from '@nestjs/throttler';
import { Gauge, Registry } from 'prom-client';
import { Env } from '../config/env';
import { MetricsModule } from '../metrics/metrics.module';
import { MemoryThrottlerStorage } from './memory-throttler.storage';
import { RATE_LIMIT_STORAGE } from './rate-limit.guard';
import { RedisThrottlerStorage } from './redis-throttler.storage';

/** Rate limits: one window, counted in memory, or in Redis when REDIS_URL is set (in memory while it is down). */
@Module({
  imports: [
    ThrottlerModule.forRootAsync({
      inject: [ConfigService],
      useFactory: (config: ConfigService<Env, true>) => ({
        throttlers: [
          { ttl: config.get('RATE_LIMIT_WINDOW_MS'), limit: config.get('RATE_LIMIT_PER_KEY') },
        ],
      }),
    }),
    MetricsModule,
  ],
  providers: [
    {
      provide: RATE_LIMIT_STORAGE,
      inject: [ConfigService, Registry],
      useFactory: (config: ConfigService<Env, true>, registry: Registry) => {
        const url = config.get('REDIS_URL', { infer: true });
        if (!url) return new MemoryThrottlerStorage();
        const available = new Gauge({
          name: 'rate_limit_redis_available',
          help: '1 while rate limits are counted in Redis; 0 while each process counts alone',
          registers: [registry],
        });
        return new RedisThrottlerStorage(url, config.get('REDIS_KEY_PREFIX'), (isAvailable) =>
          available.set(isAvailable ? 1 : 0),
        );
      },
    },
  ],
  exports: [ThrottlerModule, RATE_LIMIT_STORAGE],
})
export class RateLimitModule {}
