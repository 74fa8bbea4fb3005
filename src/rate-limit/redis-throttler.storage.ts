import { Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import { ThrottlerStorage } from '@nestjs/throttler';
import Redis from 'ioredis';
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

// After a command fails on an open connection (Redis hung, not gone), how long requests skip
// it before one tries again.
const RETRY_AFTER_FAILURE_MS = 1000;

/**
 * Rate-limit counters in Redis, so every replica draws on one budget per key.
 * While Redis cannot answer, each process counts on its own (the memory store), so limits
 * stay on, per replica; the switch is logged once each way and reported through `onChange`
 * (the rate_limit_redis_available gauge). ioredis reconnects by itself; counting returns to
 * Redis once it is ready again.
 */
export class RedisThrottlerStorage
  implements ThrottlerStorage, OnModuleInit, OnApplicationShutdown
{
  private readonly logger = new Logger(RedisThrottlerStorage.name);
  private readonly redis: Redis;
  private readonly fallback = new MemoryThrottlerStorage();
  private isAvailable?: boolean;
  private retryAt = 0;
  private isClosing = false;

  constructor(
    url: string,
    private readonly keyPrefix: string,
    private readonly onChange: (isAvailable: boolean) => void = () => undefined,
  ) {
    this.redis = new Redis(url, {
      maxRetriesPerRequest: 1,
      connectTimeout: CONNECT_TIMEOUT_MS,
      commandTimeout: 1000,
      // Without a connection a command fails at once: the request is counted here instead.
      enableOfflineQueue: false,
    });
    this.redis.on('ready', () => this.markAvailable());
    this.redis.on('error', (error: Error) => this.markUnavailable(error.message));
    this.redis.on('close', () => this.markUnavailable('connection closed'));
  }

  /** The first requests count in Redis: the boot waits for it (at most its connect timeout). */
  async onModuleInit(): Promise<void> {
    if (this.redis.status === 'ready') return;
    await new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, CONNECT_TIMEOUT_MS).unref();
      const done = () => {
        clearTimeout(timer);
        resolve();
      };
      this.redis.once('ready', done).once('error', done);
    });
  }

  async increment(key: string, ttl: number, limit: number): Promise<ThrottlerStorageRecord> {
    if (this.redis.status === 'ready' && Date.now() >= this.retryAt) {
      try {
        const [hits, remainingMs] = (await this.redis.eval(
          INCREMENT,
          1,
          this.keyPrefix + key,
          String(ttl),
        )) as [number, number];
        this.markAvailable();
        return fixedWindowRecord(hits, remainingMs, limit);
      } catch (error) {
        this.retryAt = Date.now() + RETRY_AFTER_FAILURE_MS;
        this.markUnavailable((error as Error).message);
      }
    }
    return this.fallback.increment(key, ttl, limit);
  }

  async onApplicationShutdown(): Promise<void> {
    this.isClosing = true;
    this.fallback.onApplicationShutdown();
    await this.redis.quit().catch(() => this.redis.disconnect());
  }

  private markAvailable(): void {
    this.retryAt = 0;
    if (this.isAvailable === true) return;
    if (this.isAvailable === false) this.logger.log('Redis is back: rate limits are shared again');
    this.isAvailable = true;
    this.onChange(true);
  }

  private markUnavailable(reason: string): void {
    if (this.isAvailable === false || this.isClosing) return;
    this.logger.warn(
      `Redis unavailable (${reason}): rate limits are counted per process until it is back`,
    );
    this.isAvailable = false;
    this.onChange(false);
  }
}
