import { OnApplicationShutdown } from '@nestjs/common';
import { ThrottlerStorage } from '@nestjs/throttler';
import { fixedWindowRecord, ThrottlerStorageRecord } from './fixed-window';

interface Window {
  hits: number;
  endsAt: number;
}

const SWEEP_INTERVAL_MS = 60_000;

/**
 * Rate-limit counters in process memory, when no REDIS_URL is set: the fixed window of
 * RedisThrottlerStorage, one counter per caller. (The throttler's built-in store keeps one
 * timestamp per hit and scans them all on every request, which at the default per-key budget
 * costs tens of thousands of operations a request.)
 */
export class MemoryThrottlerStorage implements ThrottlerStorage, OnApplicationShutdown {
  private readonly windows = new Map<string, Window>();
  private readonly sweeper = setInterval(() => this.sweep(), SWEEP_INTERVAL_MS).unref();

  async increment(key: string, ttl: number, limit: number): Promise<ThrottlerStorageRecord> {
    const now = Date.now();
    let window = this.windows.get(key);
    if (!window || window.endsAt <= now) {
      window = { hits: 0, endsAt: now + ttl };
      this.windows.set(key, window);
    }
    window.hits++;
    return fixedWindowRecord(window.hits, window.endsAt - now, limit);
  }

  /** Forgets callers whose window has ended, so memory follows the callers of one window. */
  sweep(now = Date.now()): void {
    for (const [key, window] of this.windows) {
      if (window.endsAt <= now) this.windows.delete(key);
    }
  }

  get size(): number {
    return this.windows.size;
  }

  onApplicationShutdown(): void {
    clearInterval(this.sweeper);
  }
}
