import { Logger } from '@nestjs/common';
import { NestExpressApplication } from '@nestjs/platform-express';
import { ChildProcess } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';
import Redis from 'ioredis';
import request from 'supertest';
import { ClientsRepository } from '../../src/clients/clients.repository';
import { listClientsScope } from '../../src/clients/dto/list-clients.query';
import { totalKey } from '../../src/clients/shared-counts';
import { AUTH, createPeerApp, createTestApp, TestApp } from '../support/create-app';
import { insertClients, insertLinks } from '../support/fixtures';
import { scrapeMetrics } from '../support/metrics';
import { describeWith } from '../support/optional-program';
import { startProxiedRedis } from '../support/redis-server';
import { TcpProxy } from '../support/tcp-proxy';
import { waitFor } from '../support/wait-for';

const TTL_MS = 5000;
// Long enough that every request of a burst arrives while the first count still runs.
const COUNT_MS = 300;
const PREFIX = 'shared-counts-test:';

// Two instances of the app (two pods) on one database and one Redis, which the test cuts off
// and restores through a proxy; docs/operations.md, Redis.
describeWith(['redis-server'], 'List Clients totals shared by pods through Redis', () => {
  let server: ChildProcess;
  let proxy: TcpProxy;
  let redis: Redis;
  let t: TestApp;
  let pods: NestExpressApplication[];
  let counts: jest.SpyInstance[];
  let warn: jest.SpyInstance;
  let links = 0;

  const total = async (pod: NestExpressApplication, query: string) =>
    (await request(pod.getHttpServer()).get(`/api/data/clients?${query}`).set(AUTH).expect(200))
      .body.meta.total as number;
  // Half the requests on each pod, all at once; limit=1 pages need a total counted.
  const burst = (linkId: string, requests = 20) =>
    Promise.all(
      Array.from({ length: requests }, (_, i) => total(pods[i % 2], `linkId=${linkId}&limit=1`)),
    );
  /** A link of its own, with `size` clients: a filter no earlier request has counted. */
  const newLink = async (size: number) => {
    const id = `link-${++links}`;
    await insertLinks(t.dataSource, [{ id }]);
    await insertClients(
      t.dataSource,
      Array.from({ length: size }, (_, i) => ({ id: `${id}-c${i}`, linkId: id, status: 'new' })),
    );
    return id;
  };
  // The totals in Redis, whatever the filter key they were stored under.
  const stored = async () => {
    const keys = await redis.keys(`${PREFIX}${totalKey('*')}`);
    return Promise.all(
      keys.map(async (key) => ({ total: await redis.get(key), ttl: await redis.pttl(key) })),
    );
  };
  const countsSoFar = () => counts.map((spy) => spy.mock.calls.length);
  const countsSince = (before: number[]) => countsSoFar().map((n, pod) => n - before[pod]);
  const outages = () =>
    warn.mock.calls
      .map(([message]) => String(message))
      .filter((message) => message.startsWith('Redis unavailable'));
  const gauges = () =>
    Promise.all(
      pods.map(
        async (pod) => /^rate_limit_redis_available (\d)$/m.exec(await scrapeMetrics(pod))?.[1],
      ),
    );
  const reportedCounts = () =>
    Promise.all(
      pods.map(async (pod) =>
        Number(/^list_clients_counts_total (\d+)$/m.exec(await scrapeMetrics(pod))?.[1]),
      ),
    );
  const bothUseRedis = () =>
    waitFor(
      async () => {
        await burst('link-0', 2);
        return (await gauges()).every((gauge) => gauge === '1');
      },
      { what: 'both pods to use Redis', intervalMs: 100 },
    );
  /**
   * Runs `attempt` until Redis answered every command of one run in time. On a loaded machine
   * an event loop held past the 100 ms command timeout opens the breaker (as it should), and
   * the pods count alone for a second: that run tells nothing of the sharing.
   */
  const whileRedisAnswers = async (attempt: () => Promise<void>) => {
    for (let run = 1; ; run++) {
      const seen = outages().length;
      await bothUseRedis();
      await redis.flushall();
      const failure = await attempt().catch((error: unknown) => error);
      if (outages().length === seen) {
        if (failure) throw failure;
        return;
      }
      if (run === 5) throw new Error('Redis timed out in every run: the machine is overloaded');
    }
  };
  // Every count, on either pod, takes COUNT_MS more than the database needs. (The suite's
  // lists are small: their totals are the counts that stop early, ClientsRepository.countUpTo.)
  const slowCounts = (pod: NestExpressApplication) => {
    const repository = pod.get(ClientsRepository);
    const countUpTo = repository.countUpTo.bind(repository);
    return jest.spyOn(repository, 'countUpTo').mockImplementation(async (filters, bound) => {
      await sleep(COUNT_MS);
      return countUpTo(filters, bound);
    });
  };

  beforeAll(async () => {
    warn = jest.spyOn(Logger.prototype, 'warn');
    ({ server, redis, proxy } = await startProxiedRedis());
    t = await createTestApp({
      env: {
        REDIS_URL: `redis://127.0.0.1:${proxy.port}`,
        REDIS_KEY_PREFIX: PREFIX,
        COUNT_CACHE_TTL_MS: String(TTL_MS),
      },
    });
    pods = [t.app, await createPeerApp()];
    counts = pods.map(slowCounts);
    await insertLinks(t.dataSource, [{ id: 'link-0' }]);
  }, 60_000);
  afterAll(async () => {
    await pods?.[1]?.close();
    await t?.close();
    await proxy?.down();
    redis?.disconnect();
    server?.kill();
    jest.restoreAllMocks();
  });

  it('counts once for a burst of requests across both pods, every total right', async () => {
    await whileRedisAnswers(async () => {
      const link = await newLink(3);
      const before = countsSoFar();
      expect(await burst(link)).toEqual(Array(20).fill(3));
      expect(countsSince(before).reduce((a, b) => a + b)).toBe(1);
      expect(await stored()).toEqual([{ total: '3', ttl: expect.any(Number) }]);
      expect(await reportedCounts()).toEqual(countsSoFar());
    });
  });

  it('serves a total another pod counted, never older than the TTL from its count start', async () => {
    await whileRedisAnswers(async () => {
      const link = await newLink(4);
      const before = countsSoFar();
      expect(await total(pods[0], `linkId=${link}&limit=1`)).toBe(4);
      // Stored for what is left of the TTL once the count finished.
      const [{ ttl }] = await stored();
      expect(ttl).toBeLessThanOrEqual(TTL_MS - COUNT_MS);
      await insertClients(t.dataSource, [{ id: `${link}-new`, linkId: link, status: 'new' }]);
      expect(await total(pods[1], `linkId=${link}&limit=1`)).toBe(4);
      expect(countsSince(before)).toEqual([1, 0]);
      await waitFor(async () => (await stored()).length === 0, {
        what: 'the stored total to expire',
        timeoutMs: TTL_MS + 5000,
      });
      expect(await burst(link, 4)).toEqual([5, 5, 5, 5]);
      expect(countsSince(before).reduce((a, b) => a + b)).toBe(2);
    });
  }, 60_000);

  // Redis is shared with whatever else can write to it: a value there is checked, not trusted.
  it('counts, and stores the count, instead of serving a stored total that is no count of the rows within the TTL', async () => {
    const keyOf = (link: string) => PREFIX + totalKey(listClientsScope({ linkId: link }));
    await whileRedisAnswers(async () => {
      for (const [value, ttlMs] of [
        ['null', 1000],
        ['-5', 1000],
        ['1e+308', 1000],
        ['12.5', 1000],
        // A full page of limit=1 shows at least two rows.
        ['0', 1000],
        ['1', 1000],
        ['3', undefined],
        ['3', TTL_MS * 10],
      ] as const) {
        const link = await newLink(3);
        if (ttlMs === undefined) await redis.set(keyOf(link), value);
        else await redis.set(keyOf(link), value, 'PX', ttlMs);
        const before = countsSoFar();
        expect(await total(pods[0], `linkId=${link}&limit=1`)).toBe(3);
        expect(countsSince(before)).toEqual([1, 0]);
        expect(await redis.get(keyOf(link))).toBe('3');
        const ttl = await redis.pttl(keyOf(link));
        expect(ttl).toBeGreaterThan(0);
        expect(ttl).toBeLessThanOrEqual(TTL_MS);
      }
    });
  }, 60_000);

  it('counts on each pod alone while Redis is down, saying so once per pod', async () => {
    const link = await newLink(5);
    const seen = outages().length;
    await proxy.down();
    const before = countsSoFar();
    expect(await burst(link)).toEqual(Array(20).fill(5));
    // One count per pod: the burst within a pod still shares one.
    expect(countsSince(before)).toEqual([1, 1]);
    expect(await gauges()).toEqual(['0', '0']);
    expect(outages().slice(seen)).toEqual(
      Array(2).fill(expect.stringContaining('list totals are counted per process')),
    );
  });

  it('shares the totals again once Redis is back', async () => {
    await proxy.up();
    await whileRedisAnswers(async () => {
      const link = await newLink(6);
      const before = countsSoFar();
      expect(await burst(link)).toEqual(Array(20).fill(6));
      expect(countsSince(before).reduce((a, b) => a + b)).toBe(1);
    });
  });
});
