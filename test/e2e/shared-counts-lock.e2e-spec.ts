import { ChildProcess } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import Redis from 'ioredis';
import { lockKey, SharedCounts, totalKey } from '../../src/clients/shared-counts';
import { freePort } from '../../src/dev/free-port';
import { SharedRedis } from '../../src/redis/shared-redis';
import { describeWith } from '../support/optional-program';
import { startRedis } from '../support/redis-server';
import { waitFor } from '../support/wait-for';

const PREFIX = 'lock-test:';

/** A count that takes `ms`, with when it started (of its last call). */
const counter = (total: number, ms = 0) => {
  const count = Object.assign(
    jest.fn(async () => {
      count.startedAt = Date.now();
      await sleep(ms);
      return total;
    }),
    { startedAt: NaN },
  );
  return count;
};

// Two pods' SharedCounts, each on its own connection to one Redis of the test's own.
describeWith(['redis-server'], 'SharedCounts: the lock between pods', () => {
  let server: ChildProcess;
  let redis: Redis;
  let connections: SharedRedis[] = [];
  let n = 0;
  const key = () => `key-${++n}`;
  const pods = async (ttlMs: number) => {
    const pair = [0, 1].map(
      () => new SharedRedis(`redis://127.0.0.1:${redis.options.port}`, PREFIX),
    );
    await Promise.all(pair.map((connection) => connection.onModuleInit()));
    connections.push(...pair);
    return pair.map((connection) => new SharedCounts(connection, ttlMs));
  };

  beforeAll(async () => {
    const port = await freePort();
    server = await startRedis(port);
    redis = new Redis(port, '127.0.0.1');
  });
  afterEach(async () => {
    await Promise.all(connections.map((connection) => connection.onApplicationShutdown()));
    connections = [];
  });
  afterAll(() => {
    redis?.disconnect();
    server?.kill();
  });

  it('has the other pod wait for the counting pod’s total, expiring with it', async () => {
    const [a, b] = await pods(5000);
    const k = key();
    const slow = counter(7, 200);
    const first = a.fetch(k, slow);
    // Counting, so holding the lock, however long the machine took to take it.
    await waitFor(() => slow.mock.calls.length === 1, { what: 'the first pod to count' });
    const other = counter(8);
    const [counted, waited] = await Promise.all([first, b.fetch(k, other)]);
    expect(counted.total).toBe(7);
    expect(waited.total).toBe(7);
    expect(other).not.toHaveBeenCalled();
    // Redis and this process read one clock (one machine).
    expect(waited.expiresAt).toBeLessThanOrEqual(slow.startedAt + 5000);
    expect(await redis.exists(PREFIX + lockKey(k))).toBe(0);
  });

  it('stores each total to expire the TTL after its count started, to the ms of Redis’s clock', async () => {
    const [a] = await pods(5000);
    // Redis's time when the pod took the lock: when its count started.
    let lockedAt: number | undefined;
    const run = connections[0].run.bind(connections[0]);
    jest.spyOn(connections[0], 'run').mockImplementation(async (work, fallback) => {
      const answer = await run(work, fallback);
      if (Array.isArray(answer) && answer[0] === 'lock') lockedAt = answer[1] as number;
      return answer;
    });
    // An expiry relative to the store's time moved whenever a ms passed within the script.
    const late: number[] = [];
    let stored = 0;
    for (let i = 0; i < 1000; i++) {
      const k = key();
      lockedAt = undefined;
      await a.fetch(k, counter(1));
      // A command slower than the breaker's bound on a busy machine: that pod counted alone.
      if (lockedAt === undefined) continue;
      stored++;
      const expiresAt = await redis.pexpiretime(PREFIX + totalKey(k));
      if (expiresAt !== lockedAt + 5000) late.push(expiresAt - lockedAt - 5000);
    }
    expect(stored).toBeGreaterThanOrEqual(900);
    expect(late).toEqual([]);
  });

  it('counts itself once the wait bound has passed, when the lock holder is gone', async () => {
    const [, b] = await pods(5000);
    const k = key();
    await redis.set(PREFIX + lockKey(k), 'a pod that died', 'PX', 60_000);
    const started = Date.now();
    const count = counter(3);
    // It waits a second (at most the TTL) for the holder's total.
    expect((await b.fetch(k, count)).total).toBe(3);
    expect(count).toHaveBeenCalledTimes(1);
    expect(Date.now() - started).toBeGreaterThanOrEqual(1000);
    expect(await redis.get(PREFIX + totalKey(k))).toBe('3');
  });

  it('frees the lock when its count fails, so the next pod counts at once', async () => {
    const [a, b] = await pods(5000);
    const k = key();
    const failing = jest.fn(() => Promise.reject(new Error('database down')));
    await expect(a.fetch(k, failing)).rejects.toThrow('database down');
    expect(await redis.exists(PREFIX + lockKey(k))).toBe(0);
    const started = Date.now();
    expect((await b.fetch(k, counter(4))).total).toBe(4);
    expect(Date.now() - started).toBeLessThan(1000);
  });

  it('stores no total whose count took longer than the TTL', async () => {
    const [a, b] = await pods(200);
    const k = key();
    expect((await a.fetch(k, counter(5, 250))).total).toBe(5);
    expect(await redis.exists(PREFIX + totalKey(k))).toBe(0);
    const count = counter(6);
    expect((await b.fetch(k, count)).total).toBe(6);
    expect(count).toHaveBeenCalledTimes(1);
  });

  it('counts at once, alone, while Redis does not answer', async () => {
    const [a] = await pods(5000);
    server.kill('SIGSTOP');
    try {
      const k = key();
      const count = counter(9);
      const started = Date.now();
      expect((await a.fetch(k, count)).total).toBe(9);
      expect(count).toHaveBeenCalledTimes(1);
      // One command timeout, then the breaker answers.
      expect(Date.now() - started).toBeLessThan(1000);
    } finally {
      server.kill('SIGCONT');
    }
  });
});
