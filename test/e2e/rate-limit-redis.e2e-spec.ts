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
    expect(await statuses('test-key-primary', PER_KEY + 1)).toEqual([200, 200, 200, 429]);
    expect(await storedKeys()).toHaveLength(1);
    expect(await gauge()).toBe('1');
  });

  it('keeps limiting per process while Redis is down, saying so once', async () => {
    await proxy.down();
    expect(await statuses('test-key-rotated', PER_KEY + 2)).toEqual([200, 200, 200, 429, 429]);
    expect(await gauge()).toBe('0');
    const outages = messages(warn).filter((message) => message.startsWith('Redis unavailable'));
    expect(outages).toHaveLength(1);
    expect(outages[0]).toContain('rate limits and list totals are counted per process');
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
    expect(messages(log).filter((message) => message.startsWith('Redis is back'))).toHaveLength(1);
    expect(
      messages(warn).filter((message) => message.startsWith('Redis unavailable')),
    ).toHaveLength(1);
  });

  it('costs a request at most a few ms while Redis hangs, one request probing it', async () => {
    server.kill('SIGSTOP');
    try {
      const rounds: number[][] = [];
      // Past two probe intervals: the probes wait, the requests beside them do not.
      const until = Date.now() + 2500;
      while (Date.now() < until) {
        rounds.push(
          await Promise.all(
            Array.from({ length: 20 }, async () => {
              const started = performance.now();
              const res = await get('test-key-primary');
              expect([200, 429]).toContain(res.status);
              return performance.now() - started;
            }),
          ),
        );
      }
      // The first requests wait out one command timeout; then the breaker answers from memory.
      expect(Math.max(...rounds.flat())).toBeLessThan(500);
      const later = rounds
        .slice(1)
        .flat()
        .sort((a, b) => a - b);
      expect(later[Math.floor(later.length / 2)]).toBeLessThan(50);
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
