import { request as httpRequest, IncomingHttpHeaders } from 'node:http';
import { AddressInfo } from 'node:net';
import { createTestApp, TestApp } from '../support/create-app';

interface Answer {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
}

// node:http rather than supertest, which cannot send a body with HEAD or a chunked one.
function send(
  port: number,
  method: string,
  path: string,
  headers: Record<string, string>,
  body?: string,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ host: '127.0.0.1', port, method, path, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

const KEYS = {
  none: undefined,
  invalid: 'Bearer not-a-key',
  valid: 'Bearer test-key-primary',
} as const;
const METHODS = ['get', 'head', 'post', 'put', 'patch', 'delete'] as const;
const BODIES = { none: undefined, small: 'x'.repeat(100), large: 'x'.repeat(2048) } as const;
const PATHS = {
  collection: '/api/data/clients',
  id: '/api/data/links/nope',
  malformedId: '/api/data/clients/%E0%A4%A',
  malformedLinkId: '/api/data/links/%FF',
  unknown: '/api/data/nope',
  unknownMalformed: '/api/data/nope/%E0%A4%A',
} as const;

type Key = keyof typeof KEYS;
type Method = (typeof METHODS)[number];
type Body = keyof typeof BODIES;
type PathKind = keyof typeof PATHS;

/** The answer the API reference gives, in the order it checks: path, key, method, body, id. */
function expected(key: Key, method: Method, body: Body, path: PathKind): number {
  if (path === 'unknown' || path === 'unknownMalformed') return 404;
  if (key !== 'valid') return 401;
  if (method !== 'get' && method !== 'head') return 405;
  if (body === 'large') return 413;
  if (path === 'malformedId' || path === 'malformedLinkId') return 400;
  return path === 'collection' ? 200 : 404;
}

const cases = (Object.keys(KEYS) as Key[]).flatMap((key) =>
  METHODS.flatMap((method) =>
    (Object.keys(BODIES) as Body[]).flatMap((body) =>
      (Object.keys(PATHS) as PathKind[]).map((path) => [key, method, body, path] as const),
    ),
  ),
);

describe('What is answered first: key, path, method, body, path id', () => {
  let t: TestApp;
  let port: number;

  beforeAll(async () => {
    t = await createTestApp();
    await t.app.listen(0, '127.0.0.1');
    port = (t.app.getHttpServer().address() as AddressInfo).port;
  });
  afterAll(() => t.close());

  it.each(cases)('key %s, %s, body %s, path %s', async (key, method, body, pathKind) => {
    const path = PATHS[pathKind];
    const headers: Record<string, string> = { Connection: 'close' };
    if (KEYS[key]) headers.Authorization = KEYS[key];
    const content = BODIES[body];
    if (content) {
      headers['Content-Type'] = 'text/plain';
      headers['Content-Length'] = String(content.length);
    }
    const res = await send(port, method.toUpperCase(), path, headers, content);
    const status = expected(key, method, body, pathKind);
    expect(res.status).toBe(status);
    if (status === 200) return;
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.headers['www-authenticate']).toBe(
      status !== 401
        ? undefined
        : key === 'none'
          ? 'Bearer realm="api"'
          : 'Bearer realm="api", error="invalid_token"',
    );
    expect(res.headers.allow).toBe(status === 405 ? 'GET, HEAD' : undefined);
    if (method === 'head') return expect(res.text).toBe('');
    expect(JSON.parse(res.text)).toEqual({
      type: 'about:blank',
      title: expect.any(String),
      status,
      detail: expect.any(String),
      instance: path,
      requestId: res.headers['x-request-id'],
      ...(status === 400 && {
        errors: [{ name: 'id', reason: 'must be valid percent-encoded UTF-8' }],
      }),
    });
  });

  it('names the id of a malformed escape together with no hint from Express', async () => {
    const res = await send(port, 'GET', '/api/data/links/%', { Authorization: KEYS.valid });
    expect(res.status).toBe(400);
    expect(JSON.parse(res.text)).toMatchObject({
      title: 'Bad Request',
      detail: 'Invalid path parameters',
      errors: [{ name: 'id', reason: 'must be valid percent-encoded UTF-8' }],
    });
    expect(res.text).not.toMatch(/decode/i);
  });

  it('reads a chunked body up to 1 KiB, after the key: within it the read is answered', async () => {
    const chunked = (headers: Record<string, string>, body: string) =>
      send(port, 'GET', '/api/data/links', { ...headers, 'Transfer-Encoding': 'chunked' }, body);
    expect((await chunked({}, BODIES.small)).status).toBe(401);
    for (const body of ['', BODIES.small, 'x'.repeat(1024)]) {
      expect((await chunked({ Authorization: KEYS.valid }, body)).status).toBe(200);
    }
    const res = await chunked({ Authorization: KEYS.valid }, 'x'.repeat(1025));
    expect(res.status).toBe(413);
    expect(JSON.parse(res.text).detail).toBe('Request bodies are limited to 1024 bytes');
    // A body that was not read to its end closes its connection after the answer.
    expect(res.headers.connection).toBe('close');
    expect((await chunked({ Authorization: KEYS.valid }, BODIES.large)).status).toBe(413);
  });
});
