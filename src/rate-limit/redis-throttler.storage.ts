import { OnApplicationShutdown } from '@nestjs/common';
import { ThrottlerStorage } from '@nestjs/throttler';
import { SharedRedis } from '../redis/shared-redis';
import { fixedWindowRecord, ThrottlerStorageRecord } from './fixed-window';
import { MemoryThrottlerStorage } from './memory-throttler.storage';

// One atomic step per request: count the hit in its fixed window (see fixedWindowRecord).
const INCREMENT = `
local hits = redis.call('INCR', KEYS[1])
if hits == 1 or redis.call('PTTL', KEYS[1]) < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
end
return { hits, redis.call('PTTL', KEYS[1]) }`;

/**
 * Rate-limit counters in Redis, so every replica draws on one budget per key. While Redis
 * fails or is slow (SharedRedis's breaker) each process counts on its own (the memory store),
 * so limits stay on, per replica.
 */
export class RedisThrottlerStorage implements ThrottlerStorage, OnApplicationShutdown {
  private readonly fallback = new MemoryThrottlerStorage();

  constructor(private readonly redis: SharedRedis) {}

  increment(key: string, ttl: number, limit: number): Promise<ThrottlerStorageRecord> {
    return this.redis.run(
      async (redis) => {
        const [hits, remainingMs] = (await redis.eval(
          INCREMENT,
          1,
          this.redis.key(key),
          String(ttl),
        )) as [number, number];
        return fixedWindowRecord(hits, remainingMs, limit);
      },
      () => this.fallback.increment(key, ttl, limit),
    );
  }

  onApplicationShutdown(): void {
    this.fallback.onApplicationShutdown();
  }
}
