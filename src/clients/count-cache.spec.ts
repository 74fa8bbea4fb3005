import { CountCache } from './count-cache';

describe('CountCache', () => {
  let clock: number;
  const now = () => clock;
  beforeEach(() => {
    clock = 1_000;
  });

  const counter = () => {
    let calls = 0;
    return {
      count: () => Promise.resolve(++calls),
      calls: () => calls,
    };
  };

  it('serves a total until it is ttl old, then counts again', async () => {
    const cache = new CountCache(2000, { maxEntries: 10, now });
    const { count, calls } = counter();
    await expect(cache.get('k', count)).resolves.toBe(1);
    clock += 1999;
    await expect(cache.get('k', count)).resolves.toBe(1);
    clock += 1;
    await expect(cache.get('k', count)).resolves.toBe(2);
    expect(calls()).toBe(2);
  });

  it('fetches again instead of serving a total below the rows the caller has seen', async () => {
    const fetched: number[] = [];
    const cache = new CountCache(2000, {
      now,
      fetch: async (_key, count, atLeast) => (
        fetched.push(atLeast),
        { total: await count(), expiresAt: clock + 2000 }
      ),
    });
    const { count, calls } = counter();
    await expect(cache.get('k', count)).resolves.toBe(1);
    await expect(cache.get('k', count, 1)).resolves.toBe(1);
    await expect(cache.get('k', count, 2)).resolves.toBe(2);
    expect(calls()).toBe(2);
    expect(fetched).toEqual([0, 2]);
  });

  it('counts on every call with ttl 0', async () => {
    const cache = new CountCache(0, { maxEntries: 10, now });
    const { count, calls } = counter();
    await Promise.all([cache.get('k', count), cache.get('k', count), cache.get('k', count)]);
    expect(calls()).toBe(3);
  });

  it('keys by filter combination', async () => {
    const cache = new CountCache(2000, { maxEntries: 10, now });
    await expect(cache.get('a', () => Promise.resolve(1))).resolves.toBe(1);
    await expect(cache.get('b', () => Promise.resolve(2))).resolves.toBe(2);
    await expect(cache.get('a', () => Promise.resolve(3))).resolves.toBe(1);
  });

  it('coalesces concurrent counts of the same key into one', async () => {
    const cache = new CountCache(2000, { maxEntries: 10, now });
    let release: (total: number) => void = () => undefined;
    let calls = 0;
    const slowCount = () => {
      calls++;
      return new Promise<number>((resolve) => (release = resolve));
    };
    const waiting = [
      cache.get('k', slowCount),
      cache.get('k', slowCount),
      cache.get('k', slowCount),
    ];
    release(42);
    await expect(Promise.all(waiting)).resolves.toEqual([42, 42, 42]);
    expect(calls).toBe(1);
  });

  it('does not keep a failed count', async () => {
    const cache = new CountCache(2000, { maxEntries: 10, now });
    await expect(cache.get('k', () => Promise.reject(new Error('down')))).rejects.toThrow('down');
    await expect(cache.get('k', () => Promise.resolve(7))).resolves.toBe(7);
  });

  it('measures age from when the count started, not when it finished', async () => {
    const cache = new CountCache(2000, { maxEntries: 10, now });
    let release: (total: number) => void = () => undefined;
    const first = cache.get('k', () => new Promise<number>((resolve) => (release = resolve)));
    clock += 1500; // the count is slow
    release(1);
    await first;
    clock += 500;
    await expect(cache.get('k', () => Promise.resolve(2))).resolves.toBe(2);
  });

  it('holds at most maxEntries keys, evicting the oldest', async () => {
    const cache = new CountCache(60_000, { maxEntries: 2, now });
    await cache.get('a', () => Promise.resolve(1));
    await cache.get('b', () => Promise.resolve(2));
    await cache.get('c', () => Promise.resolve(3));
    await expect(cache.get('a', () => Promise.resolve(10))).resolves.toBe(10);
    await expect(cache.get('c', () => Promise.resolve(30))).resolves.toBe(3);
  });

  it('serves a fetched total only until the fetch says, when that is sooner than the ttl', async () => {
    // A total another pod counted 1500 ms ago has 500 ms left.
    let fetches = 0;
    const fetch = () => Promise.resolve({ total: ++fetches, expiresAt: clock + 500 });
    const cache = new CountCache(2000, { maxEntries: 10, now, fetch });
    await expect(cache.get('k', () => Promise.resolve(-1))).resolves.toBe(1);
    clock += 499;
    await expect(cache.get('k', () => Promise.resolve(-1))).resolves.toBe(1);
    clock += 1;
    await expect(cache.get('k', () => Promise.resolve(-1))).resolves.toBe(2);
  });

  it('makes one fetch for concurrent requests of one key, passing it the key and the count', async () => {
    const fetch = jest.fn(async (key: string, count: () => Promise<number>) => ({
      total: (await count()) + key.length,
      expiresAt: clock + 2000,
    }));
    const cache = new CountCache(2000, { maxEntries: 10, now, fetch });
    const totals = await Promise.all([1, 2, 3].map(() => cache.get('abc', async () => 10)));
    expect(totals).toEqual([13, 13, 13]);
    expect(fetch).toHaveBeenCalledTimes(1);
  });

  it('reports each count it runs, and no total served from the cache', async () => {
    let reported = 0;
    const cache = new CountCache(2000, { now, onCount: () => reported++ });
    await Promise.all([cache.get('a', async () => 1), cache.get('a', async () => 1)]);
    await cache.get('b', async () => 2);
    await cache.get('a', async () => 1);
    expect(reported).toBe(2);
    await new CountCache(0, { onCount: () => reported++ }).get('a', async () => 1);
    expect(reported).toBe(3);
  });
});
