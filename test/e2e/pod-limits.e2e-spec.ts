import { AddressInfo, connect } from 'node:net';
import { Registry } from 'prom-client';
import request from 'supertest';
import { QueryRunner } from 'typeorm';
import { blockedQueries, lockClients, release } from '../support/clients-lock';
import { createTestApp, TestApp } from '../support/create-app';
import { ShutdownState } from '../../src/health/shutdown-state';
import { expectProblem } from '../support/problem';
import { waitFor } from '../support/wait-for';
import { waitingWork } from '../support/work-limits';
import { WorkLimits } from '../../src/limits/work-limits';

const KEY_A = { Authorization: 'Bearer test-key-primary' };
const KEY_B = { Authorization: 'Bearer test-key-rotated' };
const BUSY = 'The service is busy; retry after the seconds in Retry-After';

/** Sends requests that stay in flight while the clients table is locked. */
const pending = (t: TestApp, path: string, headers: Record<string, string>, count: number) =>
  Array.from({ length: count }, () => request(t.app.getHttpServer()).get(path).set(headers).then());

async function shedCount(t: TestApp, reason: string): Promise<number> {
  const metric = await t.app.get(Registry).getSingleMetric('http_requests_shed_total')?.get();
  return metric?.values.find((value) => value.labels.reason === reason)?.value ?? 0;
}

describe('Limits per pod: past a cap a clean 503 or 429, fair between keys', () => {
  let t: TestApp;
  let held: QueryRunner | undefined;
  const server = () => request(t.app.getHttpServer());

  beforeAll(async () => {
    t = await createTestApp({
      env: {
        MAX_REQUESTS_IN_FLIGHT: '4',
        MAX_REQUESTS_PER_KEY: '2',
        MAX_CONCURRENT_DEEP_PAGES: '1',
        MAX_PAGE_DEPTH: '20000',
        RESPONSE_WRITE_TIMEOUT_MS: '1000',
      },
    });
    await t.dataSource.query(`INSERT INTO links (id) VALUES ('link-0')`);
    await t.dataSource.query(
      `INSERT INTO clients (id, link_id, status)
       SELECT 'client-' || g, 'link-0', 'new' FROM generate_series(1, 30) g`,
    );
    await t.app.listen(0, '127.0.0.1');
  });
  afterEach(async () => {
    if (held) await release(held);
    held = undefined;
  });
  afterAll(() => t.close());

  it('answers one key past its own cap 429, while another key is still served', async () => {
    held = await lockClients(t.dataSource);
    const firstTwo = pending(t, '/api/data/clients/client-1', KEY_A, 2);
    await blockedQueries(t.dataSource, 2);
    const third = await server().get('/api/data/clients/client-1').set(KEY_A);
    expectProblem(third, {
      status: 429,
      title: 'Too Many Requests',
      detail:
        'Too many requests of this API key are being answered at once; retry after the seconds in Retry-After',
    });
    expect(third.headers['retry-after']).toMatch(/^[1-4]$/);
    const otherKey = pending(t, '/api/data/clients/client-2', KEY_B, 1);
    await release(held);
    held = undefined;
    for (const res of await Promise.all([...firstTwo, ...otherKey])) expect(res.status).toBe(200);
    // The key's slots are given back when its responses close.
    await server().get('/api/data/clients/client-1').set(KEY_A).expect(200);
  });

  it('answers 503 past the requests in flight, and the probes still answer', async () => {
    held = await lockClients(t.dataSource);
    const four = [
      ...pending(t, '/api/data/clients/client-1', KEY_A, 2),
      ...pending(t, '/api/data/clients/client-2', KEY_B, 2),
    ];
    await blockedQueries(t.dataSource, 4);
    const fifth = await server().get('/api/data/links');
    expect(fifth.status).toBe(503);
    expect(fifth.headers['retry-after']).toMatch(/^[1-4]$/);
    expect(fifth.body).toMatchObject({ status: 503, detail: BUSY });
    await server().get('/health/live').expect(200);
    await release(held);
    held = undefined;
    for (const res of await Promise.all(four)) expect(res.status).toBe(200);
    await server().get('/api/data/links').set(KEY_A).expect(200);
  });

  it('runs one deep page at a time: the next waits its turn, one more of that key is a 503, a shallow one is served', async () => {
    held = await lockClients(t.dataSource);
    const deep = '/api/data/clients?page=101&limit=100';
    const [first] = pending(t, deep, KEY_A, 1);
    await blockedQueries(t.dataSource, 1);
    const before = await shedCount(t, 'deep_page');
    const [waiting] = pending(t, deep, KEY_B, 1);
    await waitFor(() => waitingWork(t.app.get(WorkLimits), 'deep_page') === 1, {
      what: 'the second deep page waiting',
    });
    const third = await server().get(deep).set(KEY_B);
    expectProblem(third, { status: 503, title: 'Service Unavailable', detail: BUSY });
    expect(third.headers['retry-after']).toMatch(/^[1-4]$/);
    expect(await shedCount(t, 'deep_page')).toBe(before + 1);
    const shallow = pending(t, '/api/data/clients?page=1&limit=10', KEY_B, 1);
    await release(held);
    held = undefined;
    expect((await first).status).toBe(200);
    expect((await waiting).status).toBe(200);
    expect((await shallow[0]).status).toBe(200);
  });

  it('gives a key waiting for a deep page the next slot, before a key running them back to back', async () => {
    const deep = (n: number) => `/api/data/clients?page=${100 + (n % 50)}&limit=100`;
    const statuses = { a: [] as number[], b: [] as number[] };
    const loop = async (key: Record<string, string>, into: number[], rounds: number) => {
      for (let n = 0; n < rounds; n++) into.push((await server().get(deep(n)).set(key)).status);
    };
    // Key A: two loops back to back, each alone filling the one slot; key B: one loop.
    await Promise.all([
      loop(KEY_A, statuses.a, 30),
      loop(KEY_A, statuses.a, 30),
      loop(KEY_B, statuses.b, 20),
    ]);
    expect(statuses.b.filter((status) => status === 200).length).toBeGreaterThanOrEqual(18);
  });

  /** A connection that sends `count` requests at once (pipelined) and reads nothing yet. */
  function pipeline(path: string, count: number) {
    const { port } = t.app.getHttpServer().address() as AddressInfo;
    const socket = connect(port, '127.0.0.1');
    let received = '';
    socket.on('data', (chunk) => (received += String(chunk))).on('error', () => undefined);
    const head = `GET ${path} HTTP/1.1\r\nHost: x\r\nAuthorization: ${KEY_A.Authorization}\r\n\r\n`;
    socket.write(head.repeat(count));
    const statuses = () => [...received.matchAll(/HTTP\/1\.1 (\d{3}) /g)].map((m) => Number(m[1]));
    return { socket, statuses };
  }

  it('takes the pipelined requests of a connection one at a time: they hold one slot, others are served', async () => {
    held = await lockClients(t.dataSource);
    const piped = pipeline('/api/data/clients/client-1', 6);
    await blockedQueries(t.dataSource, 1);
    // Two other connections, of another key: within the cap of 4 only because the six piped
    // requests hold one slot between them.
    const others = pending(t, '/api/data/clients/client-2', KEY_B, 2);
    await blockedQueries(t.dataSource, 3);
    const before = await shedCount(t, 'requests_in_flight');
    await release(held);
    held = undefined;
    for (const res of await Promise.all(others)) expect(res.status).toBe(200);
    await waitFor(() => piped.statuses().length === 6, {
      what: () => `six pipelined answers, not ${JSON.stringify(piped.statuses())}`,
    });
    expect(piped.statuses()).toEqual([200, 200, 200, 200, 200, 200]);
    expect(await shedCount(t, 'requests_in_flight')).toBe(before);
    piped.socket.destroy();
  });

  it('forgets the pipelined requests of a connection closed before their turn', async () => {
    held = await lockClients(t.dataSource);
    const piped = pipeline('/api/data/clients/client-1', 5);
    await blockedQueries(t.dataSource, 1);
    piped.socket.destroy();
    await release(held);
    held = undefined;
    // Nothing left counted: no request in flight for the shutdown, all four slots free.
    await waitFor(() => t.app.get(ShutdownState).inFlight === 0, {
      what: 'no request in flight',
    });
    held = await lockClients(t.dataSource);
    const four = [
      ...pending(t, '/api/data/clients/client-1', KEY_A, 2),
      ...pending(t, '/api/data/clients/client-2', KEY_B, 2),
    ];
    await blockedQueries(t.dataSource, 4);
    await release(held);
    held = undefined;
    for (const res of await Promise.all(four)) expect(res.status).toBe(200);
  });

  it('cuts a response whose client stops reading, after the write timeout', async () => {
    // Enough links that the body outgrows the socket buffers of both ends.
    await t.dataSource.query(
      `INSERT INTO links (id) SELECT 'link-' || lpad(g::text, 200, '0') FROM generate_series(1, 60000) g`,
    );
    const { port } = t.app.getHttpServer().address() as AddressInfo;
    const before = await shedCount(t, 'write_timeout');
    const socket = connect(port, '127.0.0.1');
    let closed = false;
    socket.on('close', () => (closed = true)).on('error', () => undefined);
    socket.write(
      `GET /api/data/links HTTP/1.1\r\nHost: x\r\nAuthorization: ${KEY_A.Authorization}\r\n\r\n`,
    );
    socket.pause();
    await waitFor(async () => (await shedCount(t, 'write_timeout')) > before, {
      what: 'the stalled response to be cut',
    });
    socket.resume();
    await waitFor(() => closed, { what: 'the connection to close' });
    // The key's slot and the request's were given back with the cut response.
    await server().get('/api/data/clients/client-1').set(KEY_A).expect(200);
  }, 30000);
});
