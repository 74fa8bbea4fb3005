import request from 'supertest';
import { AUTH, createTestApp, TestApp } from '../support/create-app';

const ALLOWED = 'https://app.example.com';
const OTHER = 'https://b.example.org';

// CORS_ORIGINS on: the listed browser origins may read the API, and no other origin may.
describe('CORS with CORS_ORIGINS set', () => {
  let t: TestApp;
  const server = () => t.app.getHttpServer();

  beforeAll(async () => {
    t = await createTestApp({ env: { CORS_ORIGINS: `${ALLOWED},${OTHER}` } });
  });
  afterAll(() => t.close());

  it('answers a preflight from a listed origin with the allowed methods and headers', async () => {
    const res = await request(server())
      .options('/api/data/clients')
      .set('Origin', OTHER)
      .set('Access-Control-Request-Method', 'GET')
      .set('Access-Control-Request-Headers', 'authorization,x-request-id')
      .expect(204);
    expect(res.headers['access-control-allow-origin']).toBe(OTHER);
    expect(res.headers['access-control-allow-methods']).toBe('GET,HEAD');
    expect(res.headers['access-control-allow-headers']).toBe('Authorization,X-Request-Id');
    expect(res.headers['access-control-max-age']).toBe('600');
    expect(res.headers['vary']).toMatch(/\bOrigin\b/);
  });

  it('lets a listed origin read a response and its rate-limit and request-id headers', async () => {
    const res = await request(server())
      .get('/api/data/links')
      .set(AUTH)
      .set('Origin', ALLOWED)
      .expect(200);
    expect(res.headers['access-control-allow-origin']).toBe(ALLOWED);
    expect(res.headers['access-control-allow-credentials']).toBeUndefined();
    expect(res.headers['access-control-expose-headers']?.split(',')).toEqual([
      'X-Request-Id',
      'RateLimit-Limit',
      'RateLimit-Remaining',
      'RateLimit-Reset',
      'Retry-After',
    ]);
  });

  it('lets a browser read an error too (a 401 without a key)', async () => {
    const res = await request(server()).get('/api/data/links').set('Origin', ALLOWED).expect(401);
    expect(res.headers['access-control-allow-origin']).toBe(ALLOWED);
  });

  it('gives an origin not listed no CORS headers, on a preflight or a request', async () => {
    for (const origin of ['https://evil.example', 'http://app.example.com', `${ALLOWED}.evil`]) {
      const preflight = await request(server())
        .options('/api/data/links')
        .set('Origin', origin)
        .set('Access-Control-Request-Method', 'GET');
      expect(preflight.headers['access-control-allow-origin']).toBeUndefined();
      const res = await request(server())
        .get('/api/data/links')
        .set(AUTH)
        .set('Origin', origin)
        .expect(200);
      expect(res.headers['access-control-allow-origin']).toBeUndefined();
    }
  });
});
