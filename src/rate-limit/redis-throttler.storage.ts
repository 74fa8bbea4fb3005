import { Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { ThrottlerStorage } from '@nestjs/throttler';
import Redis from 'ioredis';
import CircuitBreaker from 'opossum';
import { fixedWindowRecord, ThrottlerStorageRecord } from './fixed-window';
import { MemoryThrottlerStorage } from './memory-throttler.storage';

// One atomic step per request: count the hit in its fixed window (see fixedWindowRecord).
const INCREMENT = `
local hits = redis.call('INCR', KEYS[1])
if hits == 1 or redis.call('PTTL', KEYS[1]) < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
end
return { hits, redis.call('PTTL', KEYS[1]) }`;

const CONNECT_TIMEOUT_MS = 2000;

// Redis answers a healthy request in well under a millisecond: a command that takes this long
// means it is hung, and the request counts in memory instead of waiting on.
const COMMAND_TIMEOUT_MS = 100;

// After a failure, how long every request counts in memory before one request probes Redis.
const PROBE_EVERY_MS = 1000;

/**
 * Rate-limit counters in Redis, so every replica draws on one budget per key.
 * Behind a circuit breaker: the first failed or slow command opens it, and while it is open
 * each process counts on its own (the memory store), so limits stay on, per replica, and a
 * hung Redis costs a request nothing; once a second one request probes Redis (the others
 * still count in memory) and its success closes the breaker. The switch is logged once each
 * way and reported through `onChange` (the rate_limit_redis_available gauge).
 */
export class RedisThrottlerStorage
  implements ThrottlerStorage, OnModuleInit, OnApplicationShutdown
{
  private readonly logger = new Logger(RedisThrottlerStorage.name);
  private readonly redis: Redis;
  private readonly fallback = new MemoryThrottlerStorage();
  private readonly breaker: CircuitBreaker<[string, number, number], ThrottlerStorageRecord>;
  private isClosing = false;

  constructor(
    url: string,
    private readonly keyPrefix: string,
    private readonly onChange: (isAvailable: boolean) => void = () => undefined,
  ) {
    this.redis = new Redis(url, {
      maxRetriesPerRequest: 0,
      connectTimeout: CONNECT_TIMEOUT_MS,
      commandTimeout: COMMAND_TIMEOUT_MS,
      // Without a connection a command fails at once: the request is counted here instead.
      enableOfflineQueue: false,
    });
    // ioredis reconnects by itself; its errors reach the requests (and the breaker) as failures.
    this.redis.on('error', () => undefined);
    this.breaker = new CircuitBreaker((key, ttl, limit) => this.countInRedis(key, ttl, limit), {
      timeout: false,
      resetTimeout: PROBE_EVERY_MS,
      // Any failure opens it: a slow Redis must not cost more requests than the first.
      errorThresholdPercentage: 0,
      rollingPercentilesEnabled: false,
    });
    this.breaker.fallback((key: string, ttl: number, limit: number) =>
      this.fallback.increment(key, ttl, limit),
    );
    this.breaker.on('open', () => this.reportUnavailable());
    this.breaker.on('close', () => this.reportAvailable());
  }

  /** The first requests count in Redis: the boot waits for it (at most its connect timeout). */
  async onModuleInit(): Promise<void> {
    const isReady =
      this.redis.status === 'ready' ||
      (await new Promise<boolean>((resolve) => {
        setTimeout(() => resolve(false), CONNECT_TIMEOUT_MS).unref();
        this.redis.once('ready', () => resolve(true));
      }));
    if (isReady) this.onChange(true);
    else this.breaker.open();
  }

  increment(key: string, ttl: number, limit: number): Promise<ThrottlerStorageRecord> {
    return this.breaker.fire(key, ttl, limit);
  }

  async onApplicationShutdown(): Promise<void> {
    this.isClosing = true;
    this.breaker.shutdown();
    this.fallback.onApplicationShutdown();
    await this.redis.quit().catch(() => this.redis.disconnect());
  }

  private async countInRedis(key: string, ttl: number, limit: number) {
    const [hits, remainingMs] = (await this.redis.eval(
      INCREMENT,
      1,
      this.keyPrefix + key,
      String(ttl),
    )) as [number, number];
    return fixedWindowRecord(hits, remainingMs, limit);
  }

  private reportAvailable(): void {
    this.logger.log('Redis is back: rate limits are shared again');
    this.onChange(true);
  }

  private reportUnavailable(): void {
    if (this.isClosing) return;
    this.logger.warn(
      'Redis unavailable or slow: rate limits are counted per process until it answers again',
    );
    this.onChange(false);
  }
}
