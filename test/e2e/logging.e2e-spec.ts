import { createHash } from 'node:crypto';
import { ServerResponse } from 'node:http';
import { PinoLogger } from 'nestjs-pino';
import request from 'supertest';
import { ClientsService } from '../../src/clients/clients.service';
import { LOG_DESTINATION } from '../../src/logging/logging.module';
import { AUTH, createTestApp, TestApp } from '../support/create-app';
import { parseLogLines } from '../support/compiled-app';

const KEY = 'test-key-primary';

// One JSON line per request, carrying the requestId of docs/api.md, Errors.
describe('Request logs', () => {
  let t: TestApp;
  let written = '';
  const lines = () => parseLogLines(written);
  const server = () => t.app.getHttpServer();

  beforeAll(async () => {
    t = await createTestApp({
      env: { LOG_LEVEL: 'info' },
      override: (builder) =>
        builder
          .overrideProvider(LOG_DESTINATION)
          .useValue({ write: (line: string) => (written += line) })
          .overrideProvider(ClientsService)
          .useValue({ findOne: () => Promise.reject(new Error('boom in SELECT secret')) }),
    });
  });
  afterAll(() => t.close());
  beforeEach(() => (written = ''));

  // The line is written when the response closes, just after supertest resolves.
  const requestLine = async (requestId: string) => {
    for (let attempt = 0; attempt < 50; attempt++) {
      const line = lines().find((entry) => entry.requestId === requestId && 'status' in entry);
      if (line) return line;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    throw new Error(`no request line for ${requestId} in:\n${written}`);
  };

  it('logs requestId, method, route template, status and duration', async () => {
    const res = await request(server()).get('/api/data/links/some-id').set(AUTH).expect(404);
    const requestId = res.headers['x-request-id'];
    expect(res.body.requestId).toBe(requestId);
    expect(await requestLine(requestId)).toEqual({
      level: 30,
      time: expect.any(Number),
      pid: process.pid,
      hostname: expect.any(String),
      requestId,
      method: 'GET',
      route: '/api/data/links/:id',
      path: '/api/data/links/some-id',
      status: 404,
      durationMs: expect.any(Number),
      // The key by its id: `env-` and the start of its SHA-256, never the key.
      key: `env-${createHash('sha256').update(KEY).digest('hex').slice(0, 8)}`,
      msg: 'request completed',
    });
  });

  it('uses an acceptable incoming X-Request-Id, and replaces any other', async () => {
    await request(server()).get('/api/data/links').set('X-Request-Id', 'trace-42').expect(401);
    expect(await requestLine('trace-42')).toMatchObject({ status: 401, route: '/api/data/links' });

    const res = await request(server()).get('/nowhere').set('X-Request-Id', 'bad id!').expect(404);
    const requestId = res.headers['x-request-id'];
    expect(requestId).not.toBe('bad id!');
    expect(res.body.requestId).toBe(requestId);
    expect(await requestLine(requestId)).toMatchObject({ route: '<unmatched>', status: 404 });
  });

  it('logs a 500 at error level, with the details under the same requestId', async () => {
    await request(server())
      .get('/api/data/clients/x')
      .set(AUTH)
      .set('X-Request-Id', 'fault-7')
      .expect(500);
    expect(await requestLine('fault-7')).toMatchObject({
      level: 50,
      msg: 'request failed',
      status: 500,
      route: '/api/data/clients/:id',
    });
    const detail = lines().find(
      (entry) => entry.requestId === 'fault-7' && entry.level === 50 && !('status' in entry),
    );
    expect(JSON.stringify(detail)).toContain('boom in SELECT secret');
  });

  it('never logs the API key, from the header or a query string', async () => {
    await request(server()).get('/api/data/links').set(AUTH).set('X-Request-Id', 'k1').expect(200);
    await request(server())
      .get(`/api/data/links?access_token=${KEY}`)
      .set('Authorization', `Bearer ${KEY}-wrong`)
      .set('X-Request-Id', 'k2')
      .expect(401);
    await requestLine('k1');
    await requestLine('k2');
    expect(written).not.toContain(KEY);
  });

  // The access line is written by the app's own middleware; a request logger mounted by
  // nestjs-pino (pino-http) would make a child logger for every request.
  it('makes no logger per request', async () => {
    const child = jest.spyOn(PinoLogger.root, 'child');
    try {
      await request(server())
        .get('/api/data/links')
        .set(AUTH)
        .set('X-Request-Id', 'c1')
        .expect(200);
      await requestLine('c1');
      expect(child).not.toHaveBeenCalled();
    } finally {
      child.mockRestore();
    }
  });

  // The in-flight count, the metrics and this line all follow a response's close: one listener.
  it('follows each response with one listener of its own', async () => {
    const on = jest.spyOn(ServerResponse.prototype, 'on');
    try {
      await request(server()).get('/api/data/links').set(AUTH).set('X-Request-Id', 'l1');
      await requestLine('l1');
      const events = on.mock.calls.map(([event]) => event);
      // Node's own 'finish', then the app's 'close'.
      expect(events.filter((event) => event === 'close' || event === 'finish')).toEqual([
        'finish',
        'close',
      ]);
    } finally {
      on.mockRestore();
    }
  });

  it('leaves probes out', async () => {
    await request(server()).get('/health/live').set('X-Request-Id', 'probe-1').expect(200);
    await request(server()).get('/health/ready').set('X-Request-Id', 'probe-2').expect(200);
    await request(server()).get('/api/data/links').set('X-Request-Id', 'after').expect(401);
    await requestLine('after');
    expect(written).not.toMatch(/probe-1|probe-2/);
  });
});
