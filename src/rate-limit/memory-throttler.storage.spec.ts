import { MemoryThrottlerStorage } from './memory-throttler.storage';

describe('MemoryThrottlerStorage', () => {
  let storage: MemoryThrottlerStorage;
  beforeEach(() => {
    jest.useFakeTimers({ now: 1_000_000 });
    storage = new MemoryThrottlerStorage();
  });
  afterEach(() => {
    storage.onApplicationShutdown();
    jest.useRealTimers();
  });

  it('counts hits in a window that starts with the first hit, and blocks past the limit', async () => {
    expect(await storage.increment('a', 60_000, 2)).toEqual({
      totalHits: 1,
      timeToExpire: 60,
      isBlocked: false,
      timeToBlockExpire: 0,
    });
    jest.advanceTimersByTime(20_500);
    expect((await storage.increment('a', 60_000, 2)).totalHits).toBe(2);
    expect(await storage.increment('a', 60_000, 2)).toEqual({
      totalHits: 3,
      timeToExpire: 40,
      isBlocked: true,
      timeToBlockExpire: 40,
    });
  });

  it('keeps one budget per key', async () => {
    await storage.increment('a', 1000, 1);
    expect((await storage.increment('b', 1000, 1)).isBlocked).toBe(false);
    expect((await storage.increment('a', 1000, 1)).isBlocked).toBe(true);
  });

  it('starts a fresh window once the last one ended', async () => {
    await storage.increment('a', 1000, 1);
    await storage.increment('a', 1000, 1);
    jest.advanceTimersByTime(1000);
    expect(await storage.increment('a', 1000, 1)).toMatchObject({ totalHits: 1, isBlocked: false });
  });

  it('counts 200,000 hits in one window (a busy key at the default budget) in one pass', async () => {
    // The throttler's built-in store rescans every earlier hit on each one: minutes here.
    for (let hit = 0; hit < 200_000; hit++) await storage.increment('a', 60_000, 1_000_000);
    expect((await storage.increment('a', 60_000, 1_000_000)).totalHits).toBe(200_001);
  });

  it('forgets callers whose window has ended', async () => {
    await storage.increment('a', 1000, 5);
    await storage.increment('b', 5000, 5);
    jest.advanceTimersByTime(60_000);
    expect(storage.size).toBe(0);
    await storage.increment('c', 1000, 5);
    storage.sweep(Date.now() + 500);
    expect(storage.size).toBe(1);
  });
});
