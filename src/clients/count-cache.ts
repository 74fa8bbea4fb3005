interface Entry {
  total: Promise<number>;
  expiresAt: number;
}

/**
 * Per-process cache of list totals (docs/api.md, Endpoints, COUNT_CACHE_TTL_MS). A total is served for at
 * most `ttlMs` after its count started, so it is never older than that; concurrent requests
 * for the same key share one count (single flight); the least recently stored key is evicted
 * beyond `maxEntries`; a failed count is not kept. With `ttlMs` 0 every call counts afresh.
 */
export class CountCache {
  private readonly entries = new Map<string, Entry>();

  constructor(
    private readonly ttlMs: number,
    private readonly maxEntries = 10_000,
    private readonly now: () => number = Date.now,
  ) {}

  get(key: string, count: () => Promise<number>): Promise<number> {
    if (this.ttlMs === 0) return count();
    const startedAt = this.now();
    const cached = this.entries.get(key);
    if (cached && cached.expiresAt > startedAt) return cached.total;
    const entry: Entry = { total: count(), expiresAt: startedAt + this.ttlMs };
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
