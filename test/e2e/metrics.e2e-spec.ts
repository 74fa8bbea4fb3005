import { connect, AddressInfo } from 'node:net';
import request from 'supertest';
import { MetricsServer } from '../../src/metrics/metrics-server';
import { AUTH, createTestApp, TestApp } from '../support/create-app';
import { scrapeMetrics } from '../support/metrics';
import { testClient } from '../support/pg-client';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// Prometheus text from this app's own registry, on its own port.
describe('Metrics', () => {
  let t: TestApp;
  const server = () => t.app.getHttpServer();
  const scrape = () => scrapeMetrics(t.app);
  const sample = (text: string, name: string, labels: string) => {
    const line = text.split('\n').find((entry) => entry.startsWith(`${name}{${labels}} `));
    return line === undefined ? undefined : Number(line.split(' ').pop());
  };

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  it('counts requests by method, route template and status, never by raw path', async () => {
    await request(server()).get('/api/data/clients/first-secret-id').set(AUTH).expect(404);
    await request(server()).get('/api/data/clients/second-secret-id').set(AUTH).expect(404);
    await request(server()).get('/api/data/links').set(AUTH).expect(200);
    await request(server()).get('/api/data/links').expect(401);
    await request(server()).delete('/api/data/links').set(AUTH).expect(405);
    await request(server()).get('/no/such/path/raw-one').expect(404);
    const text = await scrape();

    const count = (labels: string) => sample(text, 'http_requests_total', labels);
    expect(count('method="GET",route="/api/data/clients/:id",status="404"')).toBe(2);
    expect(count('method="GET",route="/api/data/links",status="200"')).toBe(1);
    expect(count('method="GET",route="/api/data/links",status="401"')).toBe(1);
    expect(count('method="DELETE",route="/api/data/links",status="405"')).toBe(1);
    expect(count('method="GET",route="<unmatched>",status="404"')).toBe(1);
    expect(text).not.toMatch(/secret-id|raw-one/);

    const histogram = (suffix: string, labels: string) =>
      sample(text, `http_request_duration_seconds_${suffix}`, labels);
    const clientsNotFound = 'method="GET",route="/api/data/clients/:id",status="404"';
    expect(histogram('count', clientsNotFound)).toBe(2);
    expect(histogram('bucket', `le="+Inf",${clientsNotFound}`)).toBe(2);
    expect(histogram('sum', clientsNotFound)).toBeGreaterThan(0);
  });

  it('counts methods beyond the common ones as OTHER, so no caller can add series at will', async () => {
    const agent = request(server()) as unknown as Record<string, (url: string) => request.Test>;
    for (const method of ['propfind', 'mkcalendar', 'purge'])
      await agent[method]('/api/data/links').set(AUTH).expect(405);
    await request(server()).patch('/api/data/links').set(AUTH).expect(405);
    const text = await scrape();
    expect(
      sample(text, 'http_requests_total', 'method="OTHER",route="/api/data/links",status="405"'),
    ).toBe(3);
    expect(
      sample(text, 'http_requests_total', 'method="PATCH",route="/api/data/links",status="405"'),
    ).toBe(1);
    expect(text).not.toMatch(/PROPFIND|MKCALENDAR|PURGE/);
  });

  it('counts a request whose client left before the answer as aborted', async () => {
    const locker = testClient({ connectionString: process.env.DATABASE_URL });
    await locker.connect();
    try {
      // The request waits on the lock; its client gives up meanwhile.
      await locker.query('BEGIN');
      await locker.query('LOCK TABLE links IN ACCESS EXCLUSIVE MODE');
      const { port } = (
        server().listening ? server() : server().listen(0)
      ).address() as AddressInfo;
      const socket = connect(port, '127.0.0.1');
      socket.write(
        `GET /api/data/links/gone HTTP/1.1\r\nHost: x\r\nAuthorization: ${AUTH.Authorization}\r\n\r\n`,
      );
      await pause(200);
      socket.destroy();
      await pause(100);
    } finally {
      await locker.query('ROLLBACK');
      await locker.end();
    }
    const text = await scrape();
    expect(
      sample(
        text,
        'http_requests_total',
        'method="GET",route="/api/data/links/:id",status="aborted"',
      ),
    ).toBe(1);
  });

  it('counts what the HTTP parser refuses before routing', async () => {
    const refused = await request(server())
      .get('/api/data/links')
      .set('X-Padding', 'x'.repeat(20 * 1024))
      .catch((error: { response: { status: number } }) => error.response);
    expect(refused.status).toBe(431);
    const text = await scrape();
    expect(
      sample(text, 'http_requests_total', 'method="OTHER",route="<unmatched>",status="431"'),
    ).toBe(1);
  });

  it('reports the database pool', async () => {
    await request(server()).get('/api/data/links').set(AUTH).expect(200);
    const text = await scrape();
    expect(sample(text, 'db_pool_connections_idle', 'pool="primary"')).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'db_pool_connections_in_use', 'pool="primary"')).toBe(0);
    expect(sample(text, 'db_pool_requests_waiting', 'pool="primary"')).toBe(0);
  });

  it('includes the default process metrics', async () => {
    const text = await scrape();
    expect(text).toMatch(/^process_cpu_user_seconds_total \d/m);
    expect(text).toMatch(/^nodejs_heap_size_used_bytes \d/m);
  });

  it('is served on its own port without a key, never on the public one', async () => {
    await request(server()).get('/metrics').expect(404);
    await request(server()).get('/metrics').set(AUTH).expect(404);
    const base = `http://127.0.0.1:${t.app.get(MetricsServer).port}`;
    expect((await fetch(`${base}/metrics`, { method: 'HEAD' })).status).toBe(200);
    for (const path of ['/', '/health/live', '/api/data/links', '/metrics/x'])
      expect((await fetch(`${base}${path}`)).status).toBe(404);
    expect((await fetch(`${base}/metrics`, { method: 'POST' })).status).toBe(404);
  });
});
