import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { SharedRedis } from '../redis/shared-redis';
import { TimedTotal } from './count-cache';

// Redis's clock in ms: a total's age is measured on it, one clock for every pod.
const NOW = `local clock = redis.call('TIME')
local now = tonumber(clock[1]) * 1000 + math.floor(tonumber(clock[2]) / 1000)`;

// One step of a pod asking for a total: the stored total and its time to live, or the lock
// (this pod counts), or neither (another pod is counting); with Redis's time, before any count.
const READ_OR_LOCK = `${NOW}
local total = redis.call('GET', KEYS[1])
if total then return { 'total', now, total, redis.call('PTTL', KEYS[1]) } end
if redis.call('SET', KEYS[2], ARGV[1], 'NX', 'PX', ARGV[2]) then return { 'lock', now } end
return { 'wait', now }`;

// Stores a total until the TTL has passed since its count started (ARGV[2], Redis's time),
// and frees the lock if it is still ours. The expiry is absolute (PXAT): one relative to now
// would move by the time between reading the clock and the SET.
const STORE_AND_UNLOCK = `${NOW}
local expiresAt = tonumber(ARGV[2]) + tonumber(ARGV[3])
if ARGV[1] ~= '' and expiresAt > now then redis.call('SET', KEYS[1], ARGV[1], 'PXAT', expiresAt) end
if redis.call('GET', KEYS[2]) == ARGV[4] then redis.call('DEL', KEYS[2]) end
return 1`;

type Answer =
  ['total', number, string, number] | ['lock', number] | ['wait', number] | ['unavailable'];

// How long a pod waits for another's count before counting itself (at most the TTL): a count
// of a large list takes a few hundred ms, and a pod that died counting frees its lock by then.
const WAIT_AT_MOST_MS = 1000;
const POLL_EVERY_MS = 5;

/** Keys of this cache's version: another layout of the stored value takes another version. */
export const totalKey = (key: string) => `lc:count:v1:${key}`;
export const lockKey = (key: string) => `lc:count-lock:v1:${key}`;

/**
 * List totals shared by every pod through Redis, one count per filter combination per TTL
 * (docs/operations.md, Redis): the pod that takes a key's lock counts and stores the total
 * for what remains of the TTL since its count started, so a stored total is never older than
 * the TTL; the others poll for it, or count themselves after the wait bound. While Redis fails
 * or is slow (SharedRedis's breaker) each pod counts alone.
 */
export class SharedCounts {
  private readonly waitMs: number;

  constructor(
    private readonly redis: SharedRedis,
    private readonly ttlMs: number,
    private readonly now: () => number = Date.now,
  ) {
    this.waitMs = Math.min(ttlMs, WAIT_AT_MOST_MS);
  }

  /**
   * The key's total: the stored one when it is servable (isServable), else counted here and
   * stored in its place. `atLeast`: the rows the request has seen, which no total may undercut.
   */
  async fetch(key: string, count: () => Promise<number>, atLeast = 0): Promise<TimedTotal> {
    const keys: [string, string] = [this.redis.key(totalKey(key)), this.redis.key(lockKey(key))];
    const token = randomUUID();
    const giveUpAt = this.now() + this.waitMs;
    for (;;) {
      const askedAt = this.now();
      const answer = await this.readOrLock(keys, token);
      if (answer[0] === 'unavailable') return this.countHere(count);
      // Served here no longer than Redis keeps it: askedAt is before Redis read its time to live.
      if (answer[0] === 'total' && this.isServable(answer[2], answer[3], atLeast))
        return { total: Number(answer[2]), expiresAt: askedAt + answer[3] };
      if (answer[0] !== 'wait' || this.now() >= giveUpAt) {
        return this.countAndStore(keys, token, answer[1], count);
      }
      await sleep(POLL_EVERY_MS);
    }
  }

  /**
   * Redis is shared, so what it holds is checked before it is served: a count (a non-negative
   * safe integer in decimal digits) no lower than the rows seen, that expires within the TTL
   * (a total without an expiry, or with a longer one, would be served past it, or forever).
   */
  private isServable(total: string, ttlMs: number, atLeast: number): boolean {
    const value = /^\d{1,16}$/.test(String(total)) ? Number(total) : NaN;
    return Number.isSafeInteger(value) && value >= atLeast && ttlMs > 0 && ttlMs <= this.ttlMs;
  }

  private readOrLock(keys: [string, string], token: string): Promise<Answer> {
    return this.redis.run(
      (redis) =>
        redis.eval(READ_OR_LOCK, 2, ...keys, token, String(this.waitMs)) as Promise<Answer>,
      (): Answer => ['unavailable'],
    );
  }

  private async countHere(count: () => Promise<number>): Promise<TimedTotal> {
    const startedAt = this.now();
    return { total: await count(), expiresAt: startedAt + this.ttlMs };
  }

  /** Counts, and stores the total from `redisStartedAt` (Redis's time before the count) on. */
  private async countAndStore(
    keys: [string, string],
    token: string,
    redisStartedAt: number,
    count: () => Promise<number>,
  ): Promise<TimedTotal> {
    const startedAt = this.now();
    let total: number;
    try {
      total = await count();
    } catch (error) {
      // The others need not wait out the lock: one of them counts next.
      await this.store(keys, token, '', redisStartedAt);
      throw error;
    }
    await this.store(keys, token, String(total), redisStartedAt);
    return { total, expiresAt: startedAt + this.ttlMs };
  }

  private store(keys: [string, string], token: string, total: string, redisStartedAt: number) {
    const args = [total, String(redisStartedAt), String(this.ttlMs), token];
    return this.redis.run(
      (redis) => redis.eval(STORE_AND_UNLOCK, 2, ...keys, ...args),
      () => undefined,
    );
  }
}
