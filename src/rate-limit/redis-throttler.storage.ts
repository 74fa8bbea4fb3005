import { Logger, OnApplicationShutdown } from '@nestjs/common';
import { ThrottlerStorage } from '@nestjs/throttler';
import Redis from 'ioredis';
import { fixedWindowRecord, ThrottlerStorageRecord } from './fixed-window';

// One atomic step per request: count the hit in its fixed window (see fixedWindowRecord).
const INCREMENT = `
local hits = redis.call('INCR', KEYS[1])
if hits == 1 or redis.call('PTTL', KEYS[1]) < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
end
return { hits, redis.call('PTTL', KEYS[1]) }`;

const WARNING_INTERVAL_MS = 10_000;

/**
 * Rate-limit counters in Redis, so every replica draws on one budget per key.
 * When Redis cannot answer, requests are let through and a warning is logged: the data API
 * stays up, unthrottled, rather than failing with its rate limiter.
 */
export class RedisThrottlerStorage implements ThrottlerStorage, OnApplicationShutdown {
  private readonly logger = new Logger(RedisThrottlerStorage.name);
  private readonly redis: Redis;
  private lastWarning = 0;

  constructor(
    url: string,
    private readonly keyPrefix: string,
  ) {
    this.redis = new Redis(url, {
      maxRetriesPerRequest: 1,
      connectTimeout: 2000,
      commandTimeout: 1000,
      enableOfflineQueue: true,
    });
    this.redis.on('error', (error: Error) => this.warn(`Redis: ${error.message}`));
  }

  async increment(key: string, ttl: number, limit: number): Promise<ThrottlerStorageRecord> {
    try {
      const [hits, remainingMs] = (await this.redis.eval(
        INCREMENT,
        1,
        this.keyPrefix + key,
        String(ttl),
      )) as [number, number];
      return fixedWindowRecord(hits, remainingMs, limit);
    } catch (error) {
      this.warn(`Rate limit not enforced, Redis did not answer: ${(error as Error).message}`);
      return fixedWindowRecord(0, ttl, limit);
    }
  }

  async onApplicationShutdown(): Promise<void> {
    await this.redis.quit().catch(() => this.redis.disconnect());
  }

  private warn(message: string): void {
    if (Date.now() - this.lastWarning < WARNING_INTERVAL_MS) return;
    this.lastWarning = Date.now();
    this.logger.warn(message);
  }
}
