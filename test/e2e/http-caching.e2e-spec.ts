import { createHash } from 'node:crypto';
import { request as httpRequest, IncomingHttpHeaders, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import zlib, { brotliDecompressSync, gunzipSync, inflateSync } from 'node:zlib';
import request from 'supertest';
import { COMPRESSIONS_AT_ONCE } from '../../src/responses/compression';
import { AUTH, createTestApp, TestApp } from '../support/create-app';
import { clearTables, insertClients, insertLinks } from '../support/fixtures';
import { waitFor } from '../support/wait-for';

interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** The bytes on the wire, undecoded (supertest would decompress them). */
function raw(server: Server, path: string, headers: Record<string, string>, method = 'GET') {
  const { port } = server.address() as AddressInfo;
  return new Promise<RawResponse>((resolve, reject) => {
    // A fresh connection each: the 413 case leaves its connection waiting for a body never sent.
    const options = { host: '127.0.0.1', port, path, method, headers, agent: false };
    const req = httpRequest(options, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
      );
    });
    req.on('error', reject);
    req.end();
  });
}

// Express's weak ETag: the body's length and the start of its SHA-1, computed independently.
function weakEtagOf(body: Buffer | string): string {
  const bytes = Buffer.from(body);
  const hash = createHash('sha1').update(bytes).digest('base64').slice(0, 27);
  return `W/"${bytes.length.toString(16)}-${hash}"`;
}

describe('Conditional requests, caching headers and compression', () => {
  let t: TestApp;
  let server: Server;

  beforeAll(async () => {
    t = await createTestApp();
    server = t.app.getHttpServer() as Server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    await insertLinks(t.dataSource, [{ id: 'link-1' }, { id: 'link-2' }]);
    await insertClients(t.dataSource, [{ id: 'client-1', linkId: 'link-1', status: 'new' }]);
    // The feeds serve a change only once it is past their safe point's margin; until then two
    // reads of a feed may rightly differ, and a 304 test would depend on the timing.
    await waitFor(
      async () =>
        (await request(server).get('/api/data/changes/clients').set(AUTH)).body.data?.length === 1,
      { what: 'the client feed to serve the fixtures' },
    );
  });
  afterAll(() => t.close());

  const get = (path: string, headers: Record<string, string> = {}) =>
    request(server).get(path).set(AUTH).set(headers);

  const expectDataHeaders = (headers: Record<string, string>) => {
    expect(headers['cache-control']).toBe('private, no-cache');
    expect(headers.vary).toBe('Authorization, Accept-Encoding');
  };

  it.each(['/api/data/links', '/api/data/links/link-1', '/api/data/clients'])(
    '%s: a weak ETag over the exact body, private no-cache, Vary',
    async (path) => {
      const res = await get(path).expect(200);
      expect(res.headers.etag).toBe(weakEtagOf(res.text));
      expectDataHeaders(res.headers);
    },
  );

  it('answers 304 with no body to a matching If-None-Match, in every form', async () => {
    const { headers } = await get('/api/data/links').expect(200);
    const etag = headers.etag;
    const forms = [etag, etag.slice(2), `"other", ${etag}`, `W/"x",${etag.slice(2)} `, '*'];
    for (const condition of forms) {
      const res = await get('/api/data/links', { 'If-None-Match': condition });
      expect([condition, res.status, res.text]).toEqual([condition, 304, '']);
      expect(res.headers.etag).toBe(etag);
      expectDataHeaders(res.headers);
      expect(res.headers['content-type']).toBeUndefined();
    }
  });

  it.each([
    '/api/data/links',
    '/api/data/links/link-1',
    '/api/data/clients',
    '/api/data/clients?linkId=link-1&limit=1',
    '/api/data/clients/client-1',
    '/api/data/changes/links',
    '/api/data/changes/clients?limit=1',
  ])('%s: 304 to its own ETag, with the data headers', async (path) => {
    const { headers } = await get(path).expect(200);
    const res = await get(path, { 'If-None-Match': headers.etag }).expect(304);
    expect([res.text, res.headers.etag]).toEqual(['', headers.etag]);
    expectDataHeaders(res.headers);
  });

  it('ignores If-Modified-Since and a no-cache request directive beside If-None-Match', async () => {
    const { headers } = await get('/api/data/links/link-1').expect(200);
    await get('/api/data/links/link-1', {
      'If-None-Match': headers.etag,
      'If-Modified-Since': 'Thu, 01 Jan 1970 00:00:00 GMT',
      'Cache-Control': 'no-cache',
    }).expect(304);
  });

  it('answers 200 with the new body once the data changed', async () => {
    const before = await get('/api/data/links/link-2').expect(200);
    await get('/api/data/links/link-2', { 'If-None-Match': 'W/"0-nothing"' }).expect(200);
    await t.dataSource.query(
      `UPDATE links SET updated_at = updated_at + interval '1 second' WHERE id = 'link-2'`,
    );
    const after = await get('/api/data/links/link-2', { 'If-None-Match': before.headers.etag });
    expect(after.status).toBe(200);
    expect(after.headers.etag).not.toBe(before.headers.etag);
    expect(after.headers.etag).toBe(weakEtagOf(after.text));
  });

  it('answers HEAD like GET without a body, conditional requests included', async () => {
    const got = await get('/api/data/clients?limit=1').expect(200);
    const head = await request(server).head('/api/data/clients?limit=1').set(AUTH).expect(200);
    expect(head.text).toBeUndefined();
    expect(head.headers.etag).toBe(got.headers.etag);
    expect(head.headers['content-length']).toBe(got.headers['content-length']);
    expectDataHeaders(head.headers);
    await request(server)
      .head('/api/data/clients?limit=1')
      .set(AUTH)
      .set('If-None-Match', got.headers.etag)
      .expect(304);
  });

  it.each([
    ['401', '/api/data/links', {}, 401],
    ['400', '/api/data/links?x=1', AUTH, 400],
    ['404', '/api/data/links/nope', AUTH, 404],
    ['unknown path', '/nowhere', AUTH, 404],
    ['413 raised in a middleware', '/api/data/links', { ...AUTH, 'Content-Length': '5000' }, 413],
  ])('%s: no-store and no ETag on an error', async (_name, path, headers, status) => {
    const res = await raw(server, path, { ...headers, 'If-None-Match': '*' });
    expect(res.status).toBe(status);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers.etag).toBeUndefined();
  });

  describe('compression', () => {
    beforeAll(() => clearTables(t.dataSource));

    /** Links whose List Links body is exactly `bytes` long. */
    async function listOfLength(bytes: number): Promise<Buffer> {
      await clearTables(t.dataSource);
      await insertLinks(t.dataSource, [{ id: 'pad', createdAt: '2024-01-01T00:00:00Z' }]);
      const base = (await raw(server, '/api/data/links', AUTH)).body.length;
      await clearTables(t.dataSource);
      const pads = ['pad'.padEnd(3 + (bytes - base), 'x')];
      await insertLinks(t.dataSource, [{ id: pads[0], createdAt: '2024-01-01T00:00:00Z' }]);
      const identity = (await raw(server, '/api/data/links', AUTH)).body;
      expect(identity.length).toBe(bytes);
      return identity;
    }

    it.each([
      ['gzip', gunzipSync],
      ['br', brotliDecompressSync],
    ])('compresses a body of 1025 bytes with %s, with the same ETag', async (encoding, decode) => {
      const identity = await listOfLength(1025);
      const res = await raw(server, '/api/data/links', { ...AUTH, 'Accept-Encoding': encoding });
      expect(res.headers['content-encoding']).toBe(encoding);
      expect(decode(res.body).equals(identity)).toBe(true);
      expect(res.headers.etag).toBe(weakEtagOf(identity));
      expect(res.headers.vary).toBe('Authorization, Accept-Encoding');
    });

    it('sends a body of 1024 bytes as it is', async () => {
      const identity = await listOfLength(1024);
      const res = await raw(server, '/api/data/links', { ...AUTH, 'Accept-Encoding': 'gzip, br' });
      expect(res.headers['content-encoding']).toBeUndefined();
      expect(res.body.equals(identity)).toBe(true);
    });

    // A caller without Accept-Encoding skips the compression middleware; its responses must
    // still tell caches that they vary by encoding, pages as well as data.
    it('without Accept-Encoding, sends bodies as they are, still varying by encoding', async () => {
      const identity = await listOfLength(1025);
      const data = await raw(server, '/api/data/links', AUTH);
      expect(data.headers['content-encoding']).toBeUndefined();
      expect(data.body.equals(identity)).toBe(true);
      expect(data.headers.vary).toBe('Authorization, Accept-Encoding');
      for (const page of ['/docs', '/no-such-page']) {
        expect((await raw(server, page, {})).headers.vary).toBe('Accept-Encoding');
      }
    });

    // List Links sends a body it compressed before; every other route is compressed as it is
    // sent. Both must choose the same encoding for the same request.
    it.each([
      ['gzip', 'gzip'],
      ['br', 'br'],
      ['deflate', 'deflate'],
      ['gzip, deflate, br', 'br'],
      ['br;q=0.5, gzip', 'gzip'],
      ['GZIP', 'gzip'],
      ['*', 'br'],
      ['identity', undefined],
      ['gzip;q=0', undefined],
      ['x-unknown', undefined],
    ])('asked %j, sends %s like every other route', async (acceptEncoding, expected) => {
      await clearTables(t.dataSource);
      const links = Array.from({ length: 20 }, (_, i) => ({ id: `link-${i}` }));
      await insertLinks(t.dataSource, links);
      await insertClients(
        t.dataSource,
        links.map(({ id }, i) => ({ id: `client-${i}`, linkId: id, status: 'new' })),
      );
      for (const path of ['/api/data/links', '/api/data/clients']) {
        expect((await raw(server, path, AUTH)).body.length).toBeGreaterThan(1024);
      }
      const asked = { ...AUTH, 'Accept-Encoding': acceptEncoding };
      const list = await raw(server, '/api/data/links', asked);
      const other = await raw(server, '/api/data/clients', asked);
      expect([list.headers['content-encoding'], other.headers['content-encoding']]).toEqual([
        expected,
        expected,
      ]);
      const decode = { br: brotliDecompressSync, gzip: gunzipSync, deflate: inflateSync };
      const identity = (await raw(server, '/api/data/links', AUTH)).body;
      const sent = expected ? decode[expected as keyof typeof decode](list.body) : list.body;
      expect(sent.equals(identity)).toBe(true);
      expect(Number(list.headers['content-length'])).toBe(list.body.length);
      expect(list.headers.vary).toBe('Authorization, Accept-Encoding');
    });

    // Each compression holds a zlib state (a few hundred KB): pages asked for at once must not
    // hold one each, nor keep one while their client reads.
    it('compresses pages asked for at once whole, a few at a time, and sends each with its length', async () => {
      await clearTables(t.dataSource);
      await insertLinks(t.dataSource, [{ id: 'link-1' }]);
      const clients = Array.from({ length: 200 }, (_, i) => ({
        id: `client-${i}`,
        linkId: 'link-1',
      }));
      await insertClients(
        t.dataSource,
        clients.map((client) => ({ ...client, status: 'new' })),
      );
      // Within the key's cap of requests at once (32).
      const paths = Array.from(
        { length: 30 },
        (_, i) => `/api/data/clients?limit=20&page=${(i % 10) + 1}`,
      );
      const identities = await Promise.all(
        paths.map(async (path) => {
          const res = await raw(server, path, AUTH);
          expect(res.status).toBe(200);
          return res.body;
        }),
      );
      const gzip = zlib.gzip;
      let running = 0;
      let most = 0;
      const wholeBodies = jest.spyOn(zlib, 'gzip').mockImplementation(((
        body: Buffer,
        done: (error: Error | null, result: Buffer) => void,
      ) => {
        most = Math.max(most, ++running);
        gzip(body, (error, result) => {
          running--;
          done(error, result);
        });
      }) as unknown as typeof zlib.gzip);
      // A zlib stream per response (what `compression` makes), counted: read-only, so wrapped.
      const { createGzip } = zlib;
      let streams = 0;
      Object.defineProperty(zlib, 'createGzip', {
        configurable: true,
        value: (...args: Parameters<typeof createGzip>) => (streams++, createGzip(...args)),
      });
      try {
        const asked = { ...AUTH, 'Accept-Encoding': 'gzip' };
        const answers = await Promise.all(paths.map((path) => raw(server, path, asked)));
        for (const [i, answer] of answers.entries()) {
          expect(answer.status).toBe(200);
          expect(identities[i].length).toBeGreaterThan(1024);
          expect(answer.headers['content-encoding']).toBe('gzip');
          expect(Number(answer.headers['content-length'])).toBe(answer.body.length);
          expect(gunzipSync(answer.body).equals(identities[i])).toBe(true);
          expect(answer.headers.etag).toBe(weakEtagOf(identities[i]));
        }
        expect(wholeBodies).toHaveBeenCalledTimes(paths.length);
        expect(most).toBeGreaterThan(0);
        expect(most).toBeLessThanOrEqual(COMPRESSIONS_AT_ONCE);
        expect(streams).toBe(0);
      } finally {
        wholeBodies.mockRestore();
        Object.defineProperty(zlib, 'createGzip', { configurable: true, value: createGzip });
      }
    });

    it('sends a page as it is when compressing it failed', async () => {
      await clearTables(t.dataSource);
      await insertLinks(t.dataSource, [{ id: 'link-1' }]);
      await insertClients(t.dataSource, [
        { id: 'x'.padEnd(2000, 'x'), linkId: 'link-1', status: 'new' },
      ]);
      const identity = (await raw(server, '/api/data/clients', AUTH)).body;
      const gzip = jest
        .spyOn(zlib, 'gzip')
        .mockImplementation(((_body: Buffer, done: (error: Error) => void) =>
          done(new Error('zlib failed'))) as unknown as typeof zlib.gzip);
      try {
        const res = await raw(server, '/api/data/clients', { ...AUTH, 'Accept-Encoding': 'gzip' });
        expect(res.status).toBe(200);
        expect(res.headers['content-encoding']).toBeUndefined();
        expect(res.body.equals(identity)).toBe(true);
        expect(Number(res.headers['content-length'])).toBe(identity.length);
      } finally {
        gzip.mockRestore();
      }
    });

    it('answers an error without the ETag or encoding of the body it could not send', async () => {
      await clearTables(t.dataSource);
      await insertLinks(t.dataSource, [{ id: 'pad'.padEnd(2000, 'x') }]);
      const gzip = jest
        .spyOn(zlib, 'gzip')
        .mockImplementation(((_body: Buffer, done: (error: Error) => void) =>
          done(new Error('zlib failed'))) as unknown as typeof zlib.gzip);
      try {
        const res = await raw(server, '/api/data/links', { ...AUTH, 'Accept-Encoding': 'gzip' });
        expect(res.status).toBe(500);
        expect(res.headers.etag).toBeUndefined();
        expect(res.headers['content-encoding']).toBeUndefined();
        expect(res.headers['cache-control']).toBe('no-store');
      } finally {
        gzip.mockRestore();
      }
    });

    it('sends no body with a 304 or a HEAD, compressed or not', async () => {
      const identity = await listOfLength(4000);
      const asked = { ...AUTH, 'Accept-Encoding': 'gzip' };
      const notModified = await raw(server, '/api/data/links', {
        ...asked,
        'If-None-Match': weakEtagOf(identity),
      });
      expect([notModified.status, notModified.body.length]).toEqual([304, 0]);
      expect(notModified.headers['content-encoding']).toBeUndefined();
      const head = await raw(server, '/api/data/links', asked, 'HEAD');
      expect([head.status, head.body.length]).toEqual([200, 0]);
      expect(head.headers.etag).toBe(weakEtagOf(identity));
    });
  });
});
