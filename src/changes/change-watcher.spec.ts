import { Registry } from 'prom-client';
import { ChangeWatcher, RETRY_EVERY_MS, WatchedChange, WATCH_EVERY_MS } from './change-watcher';
import { ChangedLinks, ChangesRepository, Feed } from './changes.repository';

const at = (second: number) => `2026-01-01T00:00:${String(second).padStart(2, '0')}.000000Z`;

/** A repository whose safe point moves a second per read, failing while `isDown`. */
function fakeRepository() {
  const fake = {
    isDown: false,
    second: 0,
    tailReads: [] as [string, string][],
    changes: { links: new Map(), clients: new Map() } as Record<Feed, ChangedLinks>,
    safePoint: () =>
      fake.isDown ? Promise.reject(new Error('no answer')) : Promise.resolve(at(++fake.second)),
    changedLinks: (from: string, to: string) => {
      fake.tailReads.push([from, to]);
      return Promise.resolve(fake.changes);
    },
  };
  return fake;
}

async function startWatcher() {
  const repository = fakeRepository();
  const registry = new Registry();
  const watcher = new ChangeWatcher(repository as unknown as ChangesRepository, registry);
  const told: WatchedChange[] = [];
  watcher.subscribe((change) => told.push(change));
  const up = async () =>
    (await registry.getSingleMetric('change_feed_watcher_up')!.get()).values[0].value;
  await watcher.onApplicationBootstrap();
  return { repository, watcher, told, up };
}

describe('ChangeWatcher', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('reads the tails only while polls wait, from where it last read, and tells what changed', async () => {
    const { repository, watcher, told, up } = await startWatcher();
    expect(await up()).toBe(1);
    expect(watcher.position).toBe(at(1));
    watcher.setActive(true);
    repository.changes = { links: new Map(), clients: new Map([['link-a', at(1)]]) };
    await jest.advanceTimersByTimeAsync(WATCH_EVERY_MS);
    expect(repository.tailReads).toEqual([[at(1), at(2)]]);
    expect(told).toEqual([{ links: repository.changes, safePoint: at(2) }]);
    await jest.advanceTimersByTimeAsync(WATCH_EVERY_MS);
    expect(repository.tailReads).toEqual([
      [at(1), at(2)],
      [at(2), at(3)],
    ]);
    // Nobody waits: a heartbeat now and then, the rows unread.
    watcher.setActive(false);
    await jest.advanceTimersByTimeAsync(10 * WATCH_EVERY_MS);
    expect(repository.tailReads).toHaveLength(2);
    await watcher.onApplicationShutdown();
  });

  it('says it is down when a read fails, has polls re-check, and wakes them all once it reads again', async () => {
    const { repository, watcher, told, up } = await startWatcher();
    watcher.setActive(true);
    await jest.advanceTimersByTimeAsync(WATCH_EVERY_MS);
    told.length = 0;
    repository.isDown = true;
    await jest.advanceTimersByTimeAsync(WATCH_EVERY_MS);
    expect(await up()).toBe(0);
    expect(watcher.isWatching).toBe(false);
    expect(told).toEqual([{ links: { links: 'all', clients: 'all' } }]);
    // Down, it retries (and polls re-check) once a RETRY_EVERY_MS, not every tick.
    await jest.advanceTimersByTimeAsync(RETRY_EVERY_MS);
    expect(told).toHaveLength(2);
    repository.isDown = false;
    await jest.advanceTimersByTimeAsync(RETRY_EVERY_MS);
    expect(await up()).toBe(1);
    expect(told.at(-1)).toEqual({
      links: { links: 'all', clients: 'all' },
      safePoint: at(repository.second),
    });
    await watcher.onApplicationShutdown();
  });

  it('starts down when its first read fails, and tells a poll it cannot say what changed', async () => {
    const repository = fakeRepository();
    repository.isDown = true;
    const watcher = new ChangeWatcher(repository as unknown as ChangesRepository, new Registry());
    await watcher.onApplicationBootstrap();
    expect(watcher.isWatching).toBe(false);
    expect(watcher.hasChangedSince(at(0), 'links')).toBe(true);
    await watcher.onApplicationShutdown();
  });
});
