import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { SharedRedis } from '../redis/shared-redis';
import { TimedTotal } from './count-cache';

// One step of a pod asking for a total: the stored total and its time to live, or the lock
// (this pod counts), or neither (another pod is counting).
const READ_OR_LOCK = `
local total = redis.call('GET', KEYS[1])
if total then return { 'total', total, redis.call('PTTL', KEYS[1]) } end
if redis.call('SET', KEYS[2], ARGV[1], 'NX', 'PX', ARGV[2]) then return { 'lock' } end
return { 'wait' }`;

// Stores a total for what is left of its time to live, and frees the lock if it is still ours.
const STORE_AND_UNLOCK = `
if tonumber(ARGV[2]) > 0 then redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2]) end
if redis.call('GET', KEYS[2]) == ARGV[3] then redis.call('DEL', KEYS[2]) end
return 1`;

type Answer = ['total', string, number] | ['lock'] | ['wait'] | ['unavailable'];

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
 * for what remains of the TTL after its count started, so a stored total is never older than
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

  async fetch(key: string, count: () => Promise<number>): Promise<TimedTotal> {
    const keys: [string, string] = [this.redis.key(totalKey(key)), this.redis.key(lockKey(key))];
    const token = randomUUID();
    const giveUpAt = this.now() + this.waitMs;
    for (;;) {
      const askedAt = this.now();
      const answer = await this.readOrLock(keys, token);
      if (answer[0] === 'total')
        return { total: Number(answer[1]), expiresAt: askedAt + answer[2] };
      if (answer[0] === 'unavailable') return this.countHere(count);
      if (answer[0] === 'lock' || this.now() >= giveUpAt)
        return this.countAndStore(keys, token, count);
      await sleep(POLL_EVERY_MS);
    }
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

  private async countAndStore(
    keys: [string, string],
    token: string,
    count: () => Promise<number>,
  ): Promise<TimedTotal> {
    const startedAt = this.now();
    let total: number;
    try {
      total = await count();
    } catch (error) {
      // The others need not wait out the lock: one of them counts next.
      await this.store(keys, token, '', 0);
      throw error;
    }
    await this.store(keys, token, String(total), startedAt + this.ttlMs - this.now());
    return { total, expiresAt: startedAt + this.ttlMs };
  }

  private store(keys: [string, string], token: string, total: string, remainingMs: number) {
    return this.redis.run(
      (redis) =>
        redis.eval(STORE_AND_UNLOCK, 2, ...keys, total, String(Math.floor(remainingMs)), token),
      () => undefined,
    );
  }
}
