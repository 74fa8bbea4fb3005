import { Logger, OnApplicationShutdown, OnModuleInit } from '@nestjs/common';
import Redis from 'ioredis';
import CircuitBreaker from 'opossum';
import { NoAnswerError, withinTimeout } from './within-timeout';

const CONNECT_TIMEOUT_MS = 2000;

// Redis answers a healthy request in well under a millisecond: a command that takes this long
// means it is hung, and the caller does its work alone instead of waiting on.
const COMMAND_TIMEOUT_MS = 100;

// The client's own timeout only bounds what a hung Redis leaves pending: its timer would fire
// before a reply that arrived while the event loop was held (withinTimeout waits for it).
const CLIENT_COMMAND_TIMEOUT_MS = 10 * COMMAND_TIMEOUT_MS;

// After a failure, how long every caller works alone before one call probes Redis.
const PROBE_EVERY_MS = 1000;

// How often a PING checks Redis, traffic or not: operators alert on the gauge, so it follows an
// outage and a return within about this, the command timeout and a reconnect.
const CHECK_EVERY_MS = 500;
const MAX_RECONNECT_DELAY_MS = 500;

type Work = (redis: Redis) => Promise<unknown>;
type Fallback = () => unknown;

/**
 * The one Redis connection the replicas share state through (rate limits, list totals),
 * behind one circuit breaker: the first failed or slow command, or the connection's loss, opens
 * it, and while it is open every call takes its fallback at once (each process works alone), so
 * a hung Redis costs a request nothing; once a second one call probes Redis (the others still
 * fall back) and its success closes the breaker. A PING on a timer moves it both ways too, with
 * or without traffic. The switch is logged once each way and reported through `onChange` (the
 * rate_limit_redis_available gauge).
 */
export class SharedRedis implements OnModuleInit, OnApplicationShutdown {
  private readonly logger = new Logger(SharedRedis.name);
  private readonly redis: Redis;
  private readonly breaker: CircuitBreaker<[Work, Fallback], unknown>;
  private isClosing = false;
  private isChecking = false;
  private checker?: NodeJS.Timeout;
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
      // A command not answered on a lost connection has had its fallback: never sent again.
      autoResendUnfulfilledCommands: false,
      retryStrategy: (attempts) => Math.min(attempts * 50, MAX_RECONNECT_DELAY_MS),
      // The handshake is its ready check alone (each command within the client's timeout), so
      // a Redis that accepts but never answers is given up within it.
      disableClientInfo: true,
    });
    // ioredis reconnects by itself; its errors reach the callers (and the breaker) as failures.
    this.redis.on('error', () => undefined);
    // A lost connection opens the breaker at once, before any command has to fail.
    this.redis.on('close', () => this.breaker.open());
    this.redis.on('ready', () => void this.check());
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
    this.checker = setInterval(() => void this.check(), CHECK_EVERY_MS).unref();
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
    clearInterval(this.checker);
    this.breaker.shutdown();
    await this.redis.quit().catch(() => this.redis.disconnect());
  }

  /**
   * Whether Redis answers a PING in time decides the breaker, so it follows Redis both ways
   * without waiting for a request to try. A PING unanswered leaves the connection's replies in
   * doubt (a reply may yet come, or be lost): a new connection starts clean.
   */
  private async check(): Promise<void> {
    if (this.isChecking || this.isClosing) return;
    this.isChecking = true;
    try {
      await withinTimeout(this.redis.ping(), COMMAND_TIMEOUT_MS);
      if (!this.isClosing) this.breaker.close();
    } catch (error) {
      this.breaker.open();
      if (error instanceof NoAnswerError && !this.isClosing) this.redis.disconnect(true);
    } finally {
      this.isChecking = false;
    }
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
