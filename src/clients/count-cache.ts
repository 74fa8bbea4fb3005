/** A total and the time, on this process's clock, until which it may be served. */
export interface TimedTotal {
  total: number;
  expiresAt: number;
}

/**
 * How the cache gets a total it does not hold: it counts it here, or through other pods.
 * `atLeast`: the rows the request has seen; a total from elsewhere below it is not served.
 */
export type FetchTotal = (
  key: string,
  count: () => Promise<number>,
  atLeast: number,
) => Promise<TimedTotal>;

/** Counts in this process; the total may be served until `ttlMs` after its count started. */
export const countHere =
  (ttlMs: number, now: () => number = Date.now): FetchTotal =>
  async (_key, count) => {
    const startedAt = now();
    return { total: await count(), expiresAt: startedAt + ttlMs };
  };

interface Entry {
  total: Promise<number>;
  expiresAt: number;
}

export interface CountCacheOptions {
  /** Where a total the process does not hold comes from; by default, counted here. */
  fetch?: FetchTotal;
  maxEntries?: number;
  now?: () => number;
  /** Called as each count starts (the list_clients_counts_total metric). */
  onCount?: () => void;
}

/**
 * The process's cache of list totals (docs/api.md, Endpoints, COUNT_CACHE_TTL_MS). A total is
 * served for at most `ttlMs` after its count started (or until `fetch` says, if earlier), so it
 * is never older than that; concurrent requests for the same key share one fetch (single
 * flight); the least recently stored key is evicted beyond `maxEntries`; a failed fetch is not
 * kept. With `ttlMs` 0 every call counts afresh.
 */
export class CountCache {
  private readonly entries = new Map<string, Entry>();
  private readonly fetch: FetchTotal;
  private readonly maxEntries: number;
  private readonly now: () => number;
  private readonly onCount: () => void;

  constructor(
    private readonly ttlMs: number,
    {
      maxEntries = 10_000,
      now = Date.now,
      fetch,
      onCount = () => undefined,
    }: CountCacheOptions = {},
  ) {
    this.maxEntries = maxEntries;
    this.now = now;
    this.fetch = fetch ?? countHere(ttlMs, now);
    this.onCount = onCount;
  }

  /**
   * The key's total. `atLeast`: the rows the request has seen (a full page proves one more); a
   * cached total below it contradicts them, and is fetched again instead of served.
   */
  async get(key: string, count: () => Promise<number>, atLeast = 0): Promise<number> {
    const counted = () => {
      this.onCount();
      return count();
    };
    if (this.ttlMs === 0) return counted();
    const startedAt = this.now();
    const cached = this.entries.get(key);
    if (cached && cached.expiresAt > startedAt) {
      const total = await cached.total;
      if (total >= atLeast) return total;
    }
    const entry = { expiresAt: startedAt + this.ttlMs } as Entry;
    entry.total = this.fetch(key, counted, atLeast).then(({ total, expiresAt }) => {
      entry.expiresAt = Math.min(entry.expiresAt, expiresAt);
      return total;
    });
    this.entries.delete(key);
    this.entries.set(key, entry);
    if (this.entries.size > this.maxEntries) {
      this.entries.delete(this.entries.keys().next().value as string);
    }
    entry.total.catch(() => {
      if (this.entries.get(key) === entry) this.entries.delete(key);
    });
    return entry.total;
  }
}
