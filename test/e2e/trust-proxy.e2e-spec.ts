import request from 'supertest';
import { createTestApp, TestApp } from '../support/create-app';

const PER_IP = 2;

// Requests without a valid key draw on their client IP's budget; X-Forwarded-For says who the
// client is only when TRUST_PROXY trusts the proxy that sent it (here, the test on loopback).
describe.each([
  ['off (the default)', 'false', false],
  ['a hop count', '1', true],
  ['a CIDR list', '10.0.0.0/8, 127.0.0.0/8', true],
])('TRUST_PROXY %s', (_case, value, isTrusted) => {
  let t: TestApp;
  const guess = (forwardedFor: string) =>
    request(t.app.getHttpServer())
      .get('/api/data/links')
      .set('Authorization', 'Bearer guess')
      .set('X-Forwarded-For', forwardedFor)
      .then((res) => res.status);

  beforeAll(async () => {
    t = await createTestApp({
      env: { TRUST_PROXY: value, RATE_LIMIT_PER_IP: String(PER_IP), RATE_LIMIT_WINDOW_MS: '60000' },
    });
  });
  afterAll(() => t.close());

  it(isTrusted ? 'counts by the forwarded client address' : 'ignores X-Forwarded-For', async () => {
    expect([await guess('203.0.113.1'), await guess('203.0.113.1')]).toEqual([401, 401]);
    // A third guess, from another forwarded address (the first one forged by the client).
    const other = await guess('198.51.100.9, 203.0.113.2');
    expect(other).toBe(isTrusted ? 401 : 429);
    expect(await guess('203.0.113.1')).toBe(429);
  });
});
