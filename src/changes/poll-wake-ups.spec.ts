import { PollWakeUps, RECHECK_MS } from './poll-wake-ups';

describe('PollWakeUps', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  /** What next() resolves with, and after how many ms; undefined when not within `withinMs`. */
  async function nextWake(wakeUps: PollWakeUps, withinMs = 60_000) {
    const startedAt = Date.now();
    let woke: { cause: string | undefined; afterMs: number } | undefined;
    void wakeUps.next().then((cause) => (woke = { cause, afterMs: Date.now() - startedAt }));
    for (let ms = 0; ms < withinMs && !woke; ms += 10) await jest.advanceTimersByTimeAsync(10);
    return woke;
  }

  it('reads once soon after it starts, then only when notified while listening', async () => {
    const wakeUps = new PollWakeUps(() => true);
    expect(await nextWake(wakeUps)).toEqual({ cause: 'interval', afterMs: 110 });
    wakeUps.foundNothing(false);
    expect(await nextWake(wakeUps, 5000)).toBeUndefined();
  });

  it('reads the safe point margin after a notification', async () => {
    const wakeUps = new PollWakeUps(() => true);
    await nextWake(wakeUps);
    wakeUps.foundNothing(false);
    let cause: string | undefined;
    void wakeUps.next().then((woke) => (cause = woke));
    await jest.advanceTimersByTimeAsync(1000);
    wakeUps.notified();
    await jest.advanceTimersByTimeAsync(100);
    expect(cause).toBeUndefined();
    await jest.advanceTimersByTimeAsync(10);
    expect(cause).toBe('notification');
  });

  it('reads again for a change notified too late for a read already due', async () => {
    const wakeUps = new PollWakeUps(() => true);
    await jest.advanceTimersByTimeAsync(50);
    wakeUps.notified();
    // The first read, due at 110 ms, comes before this change may show (at 160 ms).
    expect(await nextWake(wakeUps)).toEqual({ cause: 'interval', afterMs: 60 });
    wakeUps.foundNothing(false);
    expect(await nextWake(wakeUps)).toEqual({ cause: 'notification', afterMs: 50 });
    wakeUps.foundNothing(false);
    expect(await nextWake(wakeUps, 5000)).toBeUndefined();
  });

  it('backs off while an older writer holds the feed, up to the re-check interval', async () => {
    const wakeUps = new PollWakeUps(() => true);
    await nextWake(wakeUps);
    const delays: number[] = [];
    for (let n = 0; n < 6; n++) {
      wakeUps.foundNothing(true);
      delays.push((await nextWake(wakeUps))!.afterMs);
    }
    expect(delays).toEqual([220, 440, 880, RECHECK_MS, RECHECK_MS, RECHECK_MS]);
    wakeUps.foundNothing(false);
    expect(await nextWake(wakeUps, 5000)).toBeUndefined();
  });

  it('re-checks every interval while not listening', async () => {
    const wakeUps = new PollWakeUps(() => false);
    await nextWake(wakeUps);
    for (let n = 0; n < 3; n++) {
      wakeUps.foundNothing(false);
      expect(await nextWake(wakeUps)).toEqual({ cause: 'interval', afterMs: RECHECK_MS });
    }
  });

  it('ends a wait in progress and every later one', async () => {
    const wakeUps = new PollWakeUps(() => true);
    const woke = wakeUps.next();
    wakeUps.end();
    await expect(woke).resolves.toBeUndefined();
    await expect(wakeUps.next()).resolves.toBeUndefined();
  });
});
