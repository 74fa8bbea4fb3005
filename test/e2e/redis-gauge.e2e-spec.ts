import { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import Redis from 'ioredis';
import request from 'supertest';
import { createTestApp, TestApp } from '../support/create-app';
import { scrapeMetrics } from '../support/metrics';
import { describeWith } from '../support/optional-program';
import { startProxiedRedis, startRedis } from '../support/redis-server';
import { TcpProxy } from '../support/tcp-proxy';
import { waitFor } from '../support/wait-for';

const prefix = 'gauge-test:';

// The gauge follows Redis within about 2 s (docs/operations.md, Redis); the bound leaves room
// for a loaded machine. Without a background check it never changes while no request comes.
const FOLLOWS_WITHIN_MS = 8000;

// No request reaches the app while a test waits for the gauge: it must follow Redis by itself.
// On a loaded machine a healthy Redis may still miss the command timeout once (the breaker then
// opens until the next check): so each step waits for the value rather than reading it once.
describeWith(['redis-server'], 'rate_limit_redis_available without traffic', () => {
  let server: ChildProcess;
  let redisPort: number;
  let proxy: TcpProxy;
  let redis: Redis;
  let t: TestApp;
  const gauge = async () =>
    /^rate_limit_redis_available (\d)$/m.exec(await scrapeMetrics(t.app))?.[1];
  const gaugeReads = (value: string, what: string) =>
    waitFor(async () => (await gauge()) === value, {
      what,
      timeoutMs: FOLLOWS_WITHIN_MS,
      intervalMs: 100,
    });
  const storedKeys = () => redis.keys(`${prefix}*`);
  // One request counted in an emptied Redis (retried while a slow answer sent it to the fallback).
  const countedInRedis = async (): Promise<string> => {
    let keys: string[] = [];
    await waitFor(
      async () => {
        await redis.flushall();
        expect((await get()).status).toBe(200);
        keys = await storedKeys();
        return keys.length === 1;
      },
      { what: 'a request counted in Redis', timeoutMs: FOLLOWS_WITHIN_MS, intervalMs: 100 },
    );
    return keys[0];
  };
  const get = () =>
    request(t.app.getHttpServer())
      .get('/api/data/links')
      .set('Authorization', 'Bearer test-key-primary');

  beforeAll(async () => {
    ({ server, redis, proxy } = await startProxiedRedis());
    redisPort = proxy.targetPort;
    redis.on('error', () => undefined);
    t = await createTestApp({
      env: { REDIS_URL: `redis://127.0.0.1:${proxy.port}`, REDIS_KEY_PREFIX: prefix },
    });
  }, 60_000);
  afterAll(async () => {
    await t?.close();
    await proxy?.down();
    redis?.disconnect();
    server?.kill();
  });

  it('reads 0 once Redis stops, and 1 once it is back on the same port', async () => {
    await gaugeReads('1', 'the gauge to read 1 before the test');
    server.kill();
    await once(server, 'exit');
    await gaugeReads('0', 'the gauge to read 0 after Redis stopped');

    server = await startRedis(redisPort);
    await gaugeReads('1', 'the gauge to read 1 after Redis came back');
    // And the limits are counted in Redis again.
    await countedInRedis();
    await gaugeReads('1', 'the gauge to still read 1');
  }, 30_000);

  it('reads 0 while Redis accepts but never answers, and 1 once it answers again', async () => {
    await gaugeReads('1', 'the gauge to read 1 before the test');
    proxy.silent = true;
    await gaugeReads('0', 'the gauge to read 0 while Redis does not answer');
    // A new connection too, whose handshake goes unanswered.
    const accepted = proxy.accepted;
    await waitFor(() => proxy.accepted > accepted, { what: 'the app to connect again' });

    proxy.silent = false;
    await gaugeReads('1', 'the gauge to read 1 once Redis answers again');
    // Counted in Redis, with the reply that belongs to it: one hit.
    const key = await countedInRedis();
    expect(await redis.get(key)).toBe('1');
    await gaugeReads('1', 'the gauge to still read 1');
  }, 30_000);
});
