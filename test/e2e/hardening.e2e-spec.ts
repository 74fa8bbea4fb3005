import request from 'supertest';
import { AUTH, createTestApp, TestApp } from '../support/create-app';

describe('HTTP hardening', () => {
  let t: TestApp;
  const server = () => t.app.getHttpServer();

  beforeAll(async () => {
    t = await createTestApp();
  });
  afterAll(() => t.close());

  // Data responses carry the security headers that matter to JSON, and no X-Powered-By; the
  // headers that concern HTML pages are left to the pages.
  it.each(['/api/data/links', '/API/Data/links', '/api/data/no-such-path'])(
    '%s: the security headers of a data response',
    async (path) => {
      const res = await request(server()).get(path).set(AUTH);
      expect(res.headers['x-powered-by']).toBeUndefined();
      expect(res.headers['x-content-type-options']).toBe('nosniff');
      expect(res.headers['strict-transport-security']).toMatch(/max-age=\d+/);
      expect(res.headers['x-frame-options']).toBe('DENY');
      expect(res.headers['content-security-policy']).toBe(
        "default-src 'none';frame-ancestors 'none'",
      );
      expect(res.headers['cross-origin-resource-policy']).toBe('same-origin');
      for (const pageHeader of ['referrer-policy', 'x-xss-protection', 'x-dns-prefetch-control']) {
        expect(res.headers[pageHeader]).toBeUndefined();
      }
    },
  );

  it.each(['/docs', '/health/live'])("%s: helmet's defaults", async (path) => {
    const res = await request(server()).get(path).redirects(1);
    expect(res.headers['x-powered-by']).toBeUndefined();
    expect(res.headers['x-frame-options']).toBe('SAMEORIGIN');
    expect(res.headers['content-security-policy']).toContain("default-src 'self'");
    expect(res.headers['referrer-policy']).toBe('no-referrer');
  });

  it('has CORS off unless CORS_ORIGINS is set', async () => {
    const res = await request(server())
      .get('/api/data/links')
      .set(AUTH)
      .set('Origin', 'https://evil.example')
      .expect(200);
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
    const preflight = await request(server())
      .options('/api/data/links')
      .set('Origin', 'https://evil.example')
      .set('Access-Control-Request-Method', 'GET');
    expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('refuses a request body over 1 KiB with a 413 problem', async () => {
    const res = await request(server())
      .get('/api/data/links')
      .set(AUTH)
      .set('Content-Type', 'text/plain')
      .send('x'.repeat(2048));
    expect(res.status).toBe(413);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.body).toMatchObject({ status: 413, title: 'Payload Too Large' });
  });

  it('ignores a small body', async () => {
    await request(server()).get('/api/data/links').set(AUTH).send('hello').expect(200);
  });

  // ~15 KB of one name repeated, as far as the 16 KiB head allows: parsed and refused in
  // linear time, never holding the event loop (a copy per repeat took seconds).
  it.each(['/api/data/clients', '/api/data/changes/clients', '/api/data/links/link-a'])(
    '%s: refuses thousands of repeats of a parameter at once',
    async (path) => {
      const started = performance.now();
      const res = await request(server())
        .get(`${path}?${Array(7000).fill('x').join('&')}`)
        .set(AUTH)
        .expect(400);
      expect(res.body.errors).toEqual([{ name: 'x', reason: expect.any(String) }]);
      expect(performance.now() - started).toBeLessThan(2000);
    },
  );

  it('refuses headers over 16 KiB with a 431', async () => {
    const res = await request(server())
      .get('/api/data/links')
      .set(AUTH)
      .set('X-Padding', 'x'.repeat(20 * 1024))
      .catch(
        (error: { status?: number; response?: { status: number } }) => error.response ?? error,
      );
    expect(res.status).toBe(431);
  });
});
