import { Logger } from '@nestjs/common';
import { ChildProcess } from 'node:child_process';
import Redis from 'ioredis';
import request from 'supertest';
import { createTestApp, TestApp } from '../support/create-app';
import { scrapeMetrics } from '../support/metrics';
import { describeWith } from '../support/optional-program';
import { startProxiedRedis } from '../support/redis-server';
import { TcpProxy } from '../support/tcp-proxy';
import { waitFor } from '../support/wait-for';

const PER_KEY = 3;
const prefix = 'test:';

// The app reaches the test's Redis through a proxy the test cuts and restores.
describeWith(['redis-server'], 'Rate limits when Redis goes away and comes back', () => {
  let server: ChildProcess;
  let proxy: TcpProxy;
  let redis: Redis;
  let t: TestApp;
  let warn: jest.SpyInstance;
  let log: jest.SpyInstance;
  const get = (key: string) =>
    request(t.app.getHttpServer()).get('/api/data/links').set('Authorization', `Bearer ${key}`);
  const statuses = async (key: string, count: number) => {
    const seen: number[] = [];
    for (let i = 0; i < count; i++) seen.push((await get(key)).status);
    return seen;
  };
  const gauge = async () => {
    return /^rate_limit_redis_available (\d)$/m.exec(await scrapeMetrics(t.app))?.[1];
  };
  const storedKeys = () => redis.keys(`${prefix}*`);
  const messages = (spy: jest.SpyInstance) => spy.mock.calls.map(([message]) => String(message));
  /**
   * The switches reported, in order: one line each way per switch, never one per request or
   * probe. (A loaded machine may hold a command past its timeout, an outage of its own: the
   * lines still alternate.)
   */
  const switches = () =>
    [
      ...warn.mock.calls.map(([message], i) => [message, warn.mock.invocationCallOrder[i]]),
      ...log.mock.calls.map(([message], i) => [message, log.mock.invocationCallOrder[i]]),
    ]
      .filter(([message]) => /^Redis (unavailable|is back)/.test(String(message)))
      .sort(([, a], [, b]) => Number(a) - Number(b))
      .map(([message]) => (String(message).startsWith('Redis is back') ? 'back' : 'unavailable'));
  const expectAlternating = (kinds: string[]) =>
    kinds.forEach((kind, i) => expect(kind).toBe(i % 2 === 0 ? 'unavailable' : 'back'));

  beforeAll(async () => {
    warn = jest.spyOn(Logger.prototype, 'warn');
    log = jest.spyOn(Logger.prototype, 'log');
    ({ server, redis, proxy } = await startProxiedRedis());
    t = await createTestApp({
      env: {
        REDIS_URL: `redis://127.0.0.1:${proxy.port}`,
        REDIS_KEY_PREFIX: prefix,
        RATE_LIMIT_PER_KEY: String(PER_KEY),
        RATE_LIMIT_WINDOW_MS: '60000',
      },
    });
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await proxy?.down();
    redis?.disconnect();
    server?.kill();
    jest.restoreAllMocks();
  });

  it('counts in Redis while it answers', async () => {
    // A loaded machine may hold a command past its timeout (an outage of its own, logged): the
    // requests of that try were partly counted per process, so it is tried again on an empty Redis.
    let seen: number[] = [];
    await waitFor(
      async () => {
        await waitFor(async () => (await gauge()) === '1', { what: 'the Redis gauge to read 1' });
        await redis.flushall();
        const before = switches().length;
        seen = await statuses('test-key-primary', PER_KEY + 1);
        return switches().length === before;
      },
      { what: 'a try without an outage', timeoutMs: 20_000 },
    );
    expect(seen).toEqual([200, 200, 200, 429]);
    expect(await storedKeys()).toHaveLength(1);
  });

  it('keeps limiting per process while Redis is down, saying so once', async () => {
    const before = switches().length;
    await proxy.down();
    expect(await statuses('test-key-rotated', PER_KEY + 2)).toEqual([200, 200, 200, 429, 429]);
    // Past a probe interval (PROBE_EVERY_MS), the next request probes Redis, and fails.
    await new Promise((resolve) => setTimeout(resolve, 1100));
    expect(await statuses('test-key-rotated', 1)).toEqual([429]);
    expect(await gauge()).toBe('0');
    // Down now: the last line says so, and no more than one was added for this outage.
    expectAlternating(switches());
    expect(switches().at(-1)).toBe('unavailable');
    expect(switches().length - before).toBeLessThanOrEqual(1);
    expect(messages(warn).find((message) => message.startsWith('Redis unavailable'))).toContain(
      'rate limits and list totals are counted per process',
    );
  });

  it('returns to Redis once it is back, saying so once', async () => {
    await redis.flushall();
    await proxy.up();
    // A request probes Redis once a second; its success closes the breaker.
    await waitFor(async () => (await get('test-key-primary')) && (await gauge()) === '1', {
      what: 'the Redis gauge to read 1',
      intervalMs: 100,
    });
    await redis.flushall();
    expect(await statuses('test-key-rotated', 1)).toEqual([200]);
    expect(await storedKeys()).toHaveLength(1);
    expect(switches().length).toBeGreaterThanOrEqual(2);
    expectAlternating(switches());
  });

  // Each counted request sends one EVAL; a command Redis leaves unanswered is given up after
  // SharedRedis's command timeout (within-timeout.spec), so what a hung Redis costs is the
  // number of requests that send it a command.
  it('sends a hung Redis the first requests and one probe a second, answering every request', async () => {
    const commandsSent = () => proxy.sentToTarget.split('$4\r\neval\r\n').length - 1;
    const before = commandsSent();
    server.kill('SIGSTOP');
    try {
      const started = Date.now();
      const rounds: number[][] = [];
      // Past two probe intervals, in rounds of 20 at once.
      while (Date.now() < started + 2500) {
        rounds.push(
          await Promise.all(
            Array.from({ length: 20 }, async () => (await get('test-key-primary')).status),
          ),
        );
      }
      const elapsed = Date.now() - started;
      for (const status of rounds.flat()) expect([200, 429]).toContain(status);
      // The first round's requests went to Redis before the first of them failed; after that,
      // the breaker answers from memory but for one probe per second (PROBE_EVERY_MS).
      const probes = commandsSent() - before - rounds[0].length;
      expect(rounds.length).toBeGreaterThan(1);
      expect(probes).toBeLessThanOrEqual(Math.ceil(elapsed / 1000));
      expect(await gauge()).toBe('0');
    } finally {
      server.kill('SIGCONT');
    }
    await waitFor(async () => (await get('test-key-primary')) && (await gauge()) === '1', {
      what: 'the Redis gauge to read 1 again',
      intervalMs: 100,
    });
  });
});
