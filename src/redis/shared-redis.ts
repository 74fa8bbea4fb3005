import { Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import Redis from 'ioredis';
import CircuitBreaker from 'opossum';
import { withinTimeout } from './within-timeout';

const CONNECT_TIMEOUT_MS = 2000;

// Redis answers a healthy request in well under a millisecond: a command that takes this long
// means it is hung, and the caller does its work alone instead of waiting on.
const COMMAND_TIMEOUT_MS = 100;

// The client's own timeout only bounds what a hung Redis leaves pending: its timer would fire
// before a reply that arrived while the event loop was held (withinTimeout waits for it).
const CLIENT_COMMAND_TIMEOUT_MS = 10 * COMMAND_TIMEOUT_MS;

// After a failure, how long every caller works alone before one call probes Redis.
const PROBE_EVERY_MS = 1000;

type Work = (redis: Redis) => Promise<unknown>;
type Fallback = () => unknown;

/**
 * The one Redis connection the replicas share state through (rate limits, list totals),
 * behind one circuit breaker: the first failed or slow command opens it, and while it is open
 * every call takes its fallback at once (each process works alone), so a hung Redis costs a
 * request nothing; once a second one call probes Redis (the others still fall back) and its
 * success closes the breaker. The switch is logged once each way and reported through
 * `onChange` (the rate_limit_redis_available gauge).
 */
export class SharedRedis implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(SharedRedis.name);
  private readonly redis: Redis;
  private readonly breaker: CircuitBreaker<[Work, Fallback], unknown>;
  private isClosing = false;
  // The breaker emits `open` again each time a probe fails: only a switch is reported.
  private isAvailable?: boolean;

  constructor(
    url: string,
    private readonly keyPrefix: string,
    private readonly onChange: (isAvailable: boolean) => void = () => undefined,
  ) {
    this.redis = new Redis(url, {
      maxRetriesPerRequest: 0,
      connectTimeout: CONNECT_TIMEOUT_MS,
      commandTimeout: CLIENT_COMMAND_TIMEOUT_MS,
      // Without a connection a command fails at once: the caller falls back instead.
      enableOfflineQueue: false,
    });
    // ioredis reconnects by itself; its errors reach the callers (and the breaker) as failures.
    this.redis.on('error', () => undefined);
    this.breaker = new CircuitBreaker(
      (work: Work, _fallback: Fallback) => withinTimeout(work(this.redis), COMMAND_TIMEOUT_MS),
      {
        timeout: false,
        resetTimeout: PROBE_EVERY_MS,
        // Any failure opens it: a slow Redis must not cost more requests than the first.
        errorThresholdPercentage: 0,
        rollingPercentilesEnabled: false,
      },
    );
    this.breaker.fallback((_work: Work, fallback: Fallback) => fallback());
    this.breaker.on('open', () => this.reportUnavailable());
    this.breaker.on('close', () => this.reportAvailable());
  }

  /** The first requests use Redis: the boot waits for it (at most its connect timeout). */
  async onModuleInit(): Promise<void> {
    const isReady =
      this.redis.status === 'ready' ||
      (await new Promise<boolean>((resolve) => {
        setTimeout(() => resolve(false), CONNECT_TIMEOUT_MS).unref();
        this.redis.once('ready', () => resolve(true));
      }));
    if (isReady) this.reportAvailable();
    else this.breaker.open();
  }

  /** `work`'s result, or `fallback`'s when Redis fails, is slow or is known to be down. */
  run<T>(work: (redis: Redis) => Promise<T>, fallback: () => T | Promise<T>): Promise<T> {
    return this.breaker.fire(work, fallback) as Promise<T>;
  }

  /** `name` in this deployment's key space (REDIS_KEY_PREFIX). */
  key(name: string): string {
    return this.keyPrefix + name;
  }

  async onApplicationShutdown(): Promise<void> {
    this.isClosing = true;
    this.breaker.shutdown();
    await this.redis.quit().catch(() => this.redis.disconnect());
  }

  private reportAvailable(): void {
    if (this.isAvailable === true) return;
    if (this.isAvailable === false)
      this.logger.log('Redis is back: rate limits and list totals are shared again');
    this.isAvailable = true;
    this.onChange(true);
  }

  private reportUnavailable(): void {
    if (this.isClosing || this.isAvailable === false) return;
    this.isAvailable = false;
    this.logger.warn(
      'Redis unavailable or slow: rate limits and list totals are counted per process until it answers again',
    );
    this.onChange(false);
  }
}
