import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Reflector } from '@nestjs/core';
import request from 'supertest';
import { ApiKeyCommands } from '../../src/api-keys/api-key-commands';
import { RATE_LIMIT_STORAGE } from '../../src/rate-limit/rate-limit.guard';
import { createTestApp, TestApp } from '../support/create-app';
import { OpenApiChecker } from '../support/openapi';
import { expectProblem } from '../support/problem';

const openApiDocument = JSON.parse(readFileSync(join(__dirname, '../../openapi.json'), 'utf8'));
const PER_KEY = 3;
const PER_IP = 2;

describe('Rate limits, in memory', () => {
  let t: TestApp;
  const server = () => t.app.getHttpServer();
  const get = (authorization?: string) => {
    const req = request(server()).get('/api/data/links');
    return authorization ? req.set('Authorization', authorization) : req;
  };

  beforeAll(async () => {
    t = await createTestApp({
      env: {
        RATE_LIMIT_PER_KEY: String(PER_KEY),
        RATE_LIMIT_PER_IP: String(PER_IP),
        RATE_LIMIT_WINDOW_MS: '60000',
      },
    });
  });
  afterAll(() => t.close());

  const expectHeaders = (res: request.Response, limit: number, remaining: number) => {
    expect(res.headers['ratelimit-limit']).toBe(String(limit));
    expect(res.headers['ratelimit-remaining']).toBe(String(remaining));
    expect(Number(res.headers['ratelimit-reset'])).toBeGreaterThan(0);
    expect(Number(res.headers['ratelimit-reset'])).toBeLessThanOrEqual(60);
  };

  it('gives each key its budget across routes, then a 429 problem with Retry-After', async () => {
    const paths = ['/api/data/links', '/api/data/clients', '/api/data/links/nope'];
    for (let i = 0; i < PER_KEY; i++) {
      const res = await request(server())
        .get(paths[i])
        .set('Authorization', 'Bearer test-key-primary');
      expect(res.status).not.toBe(429);
      expectHeaders(res, PER_KEY, PER_KEY - 1 - i);
    }
    const res = await get('Bearer test-key-primary').expect(429);
    expectProblem(res, {
      status: 429,
      title: 'Too Many Requests',
      detail: 'Rate limit exceeded; retry after the seconds in Retry-After',
    });
    expect(Number(res.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(res.headers['retry-after'])).toBeLessThanOrEqual(60);
    expectHeaders(res, PER_KEY, 0);
    new OpenApiChecker(openApiDocument).expectValid(res, '/api/data/links');
    // Another key is not starved by the first.
    expectHeaders(await get('Bearer test-key-rotated').expect(200), PER_KEY, PER_KEY - 1);
  });

  // The counters' names are shared with other pods through Redis, old and new during a rollout.
  it("counts a key under one name, its id's, the same in every version", async () => {
    const increments = jest.spyOn(t.app.get(RATE_LIMIT_STORAGE), 'increment');
    try {
      await get('Bearer test-key-rotated');
      const keyId = `env-${createHash('sha256').update('test-key-rotated').digest('hex').slice(0, 8)}`;
      expect(increments.mock.calls).toEqual([
        [`ratelimit:default:key:${keyId}`, 60000, PER_KEY, 60000, 'default'],
      ]);
    } finally {
      increments.mockRestore();
    }
  });

  it('limits a database key by its id', async () => {
    const { key } = await new ApiKeyCommands(t.dataSource).create('limited');
    await new Promise((resolve) => setTimeout(resolve, 1100));
    for (let i = 0; i < PER_KEY; i++) await get(`Bearer ${key}`).expect(200);
    await get(`Bearer ${key}`).expect(429);
  });

  it('never throttles health probes', async () => {
    for (let i = 0; i < PER_IP * 3; i++) {
      const res = await request(server()).get('/health/live').expect(200);
      expect(res.headers['ratelimit-limit']).toBeUndefined();
    }
  });

  // Which routes skip the limit is read once per route, not on every request.
  it("reads the routes' throttling metadata once per route", async () => {
    const reads = jest.spyOn(t.app.get(Reflector), 'getAllAndOverride');
    try {
      for (let i = 0; i < 3; i++) await request(server()).get('/health/live').expect(200);
      const throttling = reads.mock.calls.filter(([key]) => String(key).startsWith('THROTTLER'));
      expect(throttling.length).toBeLessThanOrEqual(1);
    } finally {
      reads.mockRestore();
    }
  });

  it('limits requests without a valid key by client IP, so guessing is throttled', async () => {
    expectHeaders(await get().expect(401), PER_IP, PER_IP - 1);
    expectHeaders(await get('Bearer guess-1').expect(401), PER_IP, 0);
    const res = await get('Bearer guess-2').expect(429);
    expect(res.headers['retry-after']).toBeDefined();
    // The public reference draws on the same budget: an anonymous flood of it is throttled too.
    for (const path of ['/docs', '/docs/openapi.json', '/docs/swagger-ui-bundle.js']) {
      await request(server()).get(path).expect(429);
    }
    // A valid key still has its own budget from the same IP.
    await get('Bearer test-key-rotated').expect(200);
  });
});
