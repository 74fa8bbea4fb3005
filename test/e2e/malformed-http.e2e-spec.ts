import { Server, STATUS_CODES } from 'node:http';
import { connect } from 'node:net';
import request from 'supertest';
import { createTestApp, TestApp } from '../support/create-app';

/**
 * Sends raw bytes (an array: each part 10 ms after the last, in packets of its own) and
 * returns the whole answer ('' if the socket just closed).
 */
function exchange(port: number, bytes: string | Buffer | string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    socket.setTimeout(5000, () => socket.destroy(new Error('no answer within 5 s')));
    socket.on('data', (chunk) => (answer += chunk.toString('latin1')));
    socket.on('error', (error) =>
      (error as { code?: string }).code === 'ECONNRESET' ? resolve(answer) : reject(error),
    );
    socket.on('close', () => resolve(answer));
    const parts = Array.isArray(bytes) ? [...bytes] : [bytes];
    const writeNext = () => {
      if (!socket.writable) return;
      socket.write(parts.shift() as string | Buffer);
      if (parts.length > 0) setTimeout(writeNext, 10);
    };
    writeNext();
  });
}

/** The status line of the answer ('' if the socket just closed). */
const raw = async (port: number, bytes: string | Buffer) =>
  (await exchange(port, bytes)).split('\r\n')[0];

/** A raw answer's status, headers (names in lower case) and body. */
function parseAnswer(answer: string) {
  const [head, body] = answer.split('\r\n\r\n');
  const [statusLine, ...fields] = head.split('\r\n');
  const headers = Object.fromEntries(
    fields.map((field) => [
      field.slice(0, field.indexOf(':')).toLowerCase(),
      field.slice(field.indexOf(':') + 1).trim(),
    ]),
  );
  return { status: Number(statusLine.split(' ')[1]), headers, body };
}

const inPackets = (text: string, size: number) =>
  Array.from({ length: Math.ceil(text.length / size) }, (_, i) =>
    text.slice(i * size, (i + 1) * size),
  );

// Requests Node's HTTP parser or our routes must refuse with a 4xx, never a crash.
describe('Malformed HTTP', () => {
  let t: TestApp;
  let port: number;

  beforeAll(async () => {
    t = await createTestApp();
    await t.app.listen(0, '127.0.0.1');
    port = (t.app.getHttpServer().address() as { port: number }).port;
  });
  afterAll(() => t.close());

  it('sets the HTTP timeouts deliberately', () => {
    // connectionsCheckingInterval is missing from Node's type definitions.
    const server = t.app.getHttpServer() as Server & { connectionsCheckingInterval: number };
    expect(server.keepAliveTimeout).toBe(65_000);
    expect(server.headersTimeout).toBe(10_000);
    expect(server.requestTimeout).toBe(30_000);
    // Node's default, 30 s, would answer a slow client up to 30 s past its deadline.
    expect(server.connectionsCheckingInterval).toBe(1_000);
  });

  const get = (path: string, headers = '') =>
    `GET ${path} HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer test-key-primary\r\n${headers}Connection: close\r\n\r\n`;

  it.each([
    ['a NUL byte in the path', get('/api/data/clients/a\u0000b'), /^HTTP\/1\.1 400/],
    ['a space in the path', get('/api/data/clients/a b'), /^HTTP\/1\.1 400/],
    [
      'a control character in a header',
      get('/api/data/clients', 'X-Bad: a\u0001b\r\n'),
      /^HTTP\/1\.1 400/,
    ],
    [
      'a bad Content-Length on a GET',
      get('/api/data/clients', 'Content-Length: abc\r\n'),
      /^HTTP\/1\.1 400/,
    ],
    [
      'two Content-Lengths that disagree',
      get('/api/data/clients', 'Content-Length: 1\r\nContent-Length: 2\r\n'),
      /^HTTP\/1\.1 400/,
    ],
    ['invalid percent-encoding in the path', get('/api/data/clients/%E0%A4%A'), /^HTTP\/1\.1 400/],
    ['invalid percent-encoding in the query', get('/api/data/clients?page=%ZZ'), /^HTTP\/1\.1 400/],
    ['binary garbage', Buffer.from([0, 255, 1, 254, 13, 10, 13, 10]), /^(HTTP\/1\.1 400\b.*|)$/],
  ])('%s: a 4xx or a closed connection', async (_case, bytes, expected) => {
    expect(await raw(port, bytes)).toMatch(expected);
  });

  const longTarget = `/api/data/clients/${'a'.repeat(17_000)}`;
  const cookie = Array.from({ length: 1000 }, (_, i) => `c${i}=${'v'.repeat(20)}`).join('; ');
  it.each([
    ['a request target over the limit', 414, get(longTarget)],
    ['a query over the limit', 414, get(`/api/data/links?clientId=${'a'.repeat(20_000)}`)],
    ['a request target over the limit, in packets', 414, inPackets(get(longTarget), 1000)],
    ['headers over the limit', 431, get('/api/data/clients', `X-Big: ${'a'.repeat(20_000)}\r\n`)],
    ['headers over the limit, in packets', 431, inPackets(get('/', `Cookie: ${cookie}\r\n`), 1000)],
    ['a request line that is not HTTP', 400, 'HELLO\r\n\r\n'],
    ['a method the parser does not know', 405, get('/api/data/links').replace('GET', 'FOO')],
    ['a method in lower case', 405, get('/api/data/links').replace('GET', 'get')],
    ['an HTTP/1.1 request without Host', 400, 'GET /api/data/links HTTP/1.1\r\n\r\n'],
    ['an Expect other than 100-continue', 417, get('/api/data/links', 'Expect: foo\r\n')],
  ])(
    '%s: %i problem details, never stored, and the connection closed',
    async (_c, status, bytes) => {
      const { status: received, headers, body } = parseAnswer(await exchange(port, bytes));
      expect(received).toBe(status);
      expect(headers).toMatchObject({
        'content-type': 'application/problem+json',
        'cache-control': 'no-store',
        connection: 'close',
        'content-length': String(Buffer.byteLength(body)),
      });
      // Nothing of the request is echoed: the id is new, and there is no `instance`.
      expect(JSON.parse(body)).toEqual({
        type: 'about:blank',
        title: STATUS_CODES[status],
        status,
        detail: expect.any(String),
        requestId: headers['x-request-id'],
      });
      expect(headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
      expect(headers.allow).toBe(status === 405 ? 'GET, HEAD' : undefined);
    },
  );

  it('invites no body with 100 Continue: bodies are never read', async () => {
    const post = get('/api/data/links', 'Expect: 100-continue\r\nContent-Length: 5000\r\n');
    expect(await raw(port, post.replace(/^GET/, 'POST'))).toBe('HTTP/1.1 405 Method Not Allowed');
  });

  const chunkedRead = (version: string, expectation: string) =>
    `GET /api/data/links HTTP/${version}\r\nHost: localhost\r\n` +
    `Authorization: Bearer test-key-primary\r\nTransfer-Encoding: chunked\r\n${expectation}` +
    'Connection: close\r\n\r\n';
  const CHUNKED_BODY = '5\r\nhello\r\n0\r\n\r\n';

  it.each([['Expect: 100-continue\r\n'], ['Expect: 100-Continue\r\nExpect: 100-continue\r\n']])(
    "invites a chunked read's body with 100 Continue once its key has passed (%j)",
    async (expectation) => {
      const answer = await new Promise<string>((resolve, reject) => {
        const socket = connect(port, '127.0.0.1');
        let received = '';
        socket.setTimeout(5000, () => socket.destroy(new Error('no answer within 5 s')));
        socket.on('data', (chunk) => {
          // The body is sent only once invited, as a client that asked would.
          if (!received.includes('100 Continue') && (received += chunk).includes('100 Continue'))
            socket.write(CHUNKED_BODY);
          else received += chunk;
        });
        socket.on('error', reject);
        socket.on('close', () => resolve(received));
        socket.write(chunkedRead('1.1', expectation));
      });
      expect(answer).toMatch(/^HTTP\/1\.1 100 Continue\r\n\r\nHTTP\/1\.1 200 OK\r\n/);
    },
  );

  it('sends an HTTP/1.0 client no 100 Continue, whatever it expects', async () => {
    const answer = await exchange(port, [
      chunkedRead('1.0', 'Expect: 100-continue\r\n'),
      CHUNKED_BODY,
    ]);
    expect(answer).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(answer).not.toContain('100 Continue');
  });

  it('answers CONNECT with the 405 rather than closing without a word', async () => {
    for (const target of ['/api/data/links', 'example.com:443']) {
      const answer = await exchange(port, `CONNECT ${target} HTTP/1.1\r\nHost: x\r\n\r\n`);
      const { status, headers } = parseAnswer(answer);
      expect([target, status, headers.allow]).toEqual([target, 405, 'GET, HEAD']);
    }
  });

  it('answers 400, never 405, to bytes that are not a request line in the packet', async () => {
    // A TLS ClientHello sent to the plain port, and garbage after a first, valid request.
    const clientHello = Buffer.from([0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xfc, 0x03]);
    expect(await raw(port, clientHello)).toMatch(/^(HTTP\/1\.1 400\b.*|)$/);
    const first = get('/api/data/links').replace('Connection: close\r\n', '');
    const answer = await exchange(port, `${first}FOO\u0000 /api/data/links HTTP/1.1\r\n\r\n`);
    expect(answer).toMatch(/HTTP\/1\.1 400 Bad Request\r\n/);
    expect(answer).not.toMatch(/HTTP\/1\.1 405 /);
    // Nor an unknown method behind a request still being answered: the 405 would read as its.
    const behind = await exchange(port, `${first}FOO /api/data/links HTTP/1.1\r\nHost: x\r\n\r\n`);
    expect(behind).not.toMatch(/HTTP\/1\.1 405 /);
  });

  it('answers an HTTP/1.1 request without Host in the app: its request id is kept', async () => {
    const answer = await exchange(
      port,
      'GET /api/data/links HTTP/1.1\r\nX-Request-Id: abc\r\n\r\n',
    );
    const { status, headers, body } = parseAnswer(answer);
    expect(status).toBe(400);
    expect(headers['x-request-id']).toBe('abc');
    expect(JSON.parse(body)).toMatchObject({ status: 400, requestId: 'abc' });
  });

  it('refuses two Authorization headers with a 401, whichever key comes first', async () => {
    const valid = 'Authorization: Bearer test-key-primary\r\n';
    const invalid = 'Authorization: Bearer not-a-key\r\n';
    const links = (fields: string) =>
      `GET /api/data/links HTTP/1.1\r\nHost: localhost\r\n${fields}Connection: close\r\n\r\n`;
    for (const fields of [valid + invalid, invalid + valid, valid + valid.toLowerCase()]) {
      const { status, headers, body } = parseAnswer(await exchange(port, links(fields)));
      expect(status).toBe(401);
      expect(headers['www-authenticate']).toBe('Bearer realm="api", error="invalid_token"');
      expect(JSON.parse(body)).toMatchObject({
        status: 401,
        detail: 'Send one Authorization header, not several',
      });
    }
    expect(await raw(port, links(valid))).toBe('HTTP/1.1 200 OK');
  });

  it('answers a target in absolute form as its path: data headers, no user info in the problem', async () => {
    const answerTo = (target: string) => exchange(port, get(target)).then(parseAnswer);
    const origin = await answerTo('/api/data/links');
    const absolute = await answerTo('http://localhost/api/data/links');
    expect(absolute.status).toBe(200);
    for (const name of ['cache-control', 'vary', 'content-security-policy', 'x-frame-options'])
      expect([name, absolute.headers[name]]).toEqual([name, origin.headers[name]]);

    const missing = await answerTo('HTTP://user:s3cret@localhost:80/api/data/clients/nope');
    expect(missing.status).toBe(404);
    expect(missing.headers['cache-control']).toBe('no-store');
    expect(JSON.parse(missing.body)).toMatchObject({ instance: '/api/data/clients/nope' });
    expect(missing.body).not.toContain('s3cret');

    // Files under a mounted path (the reference's) are found too.
    const css = await answerTo('http://localhost/docs/swagger-ui.css');
    expect([css.status, css.headers['content-type']]).toEqual([200, 'text/css; charset=utf-8']);
    expect((await answerTo('http://localhost/docs/package.json')).status).toBe(404);
  });

  it('serves an HTTP/1.0 request without Host', async () => {
    expect(await raw(port, 'GET /health/live HTTP/1.0\r\n\r\n')).toBe('HTTP/1.1 200 OK');
  });

  it('answers a client that trickles its headers with 408 and closes, serving others meanwhile', async () => {
    const server = t.app.getHttpServer();
    // The deliberate 10 s (checked above) shortened for this test alone.
    const HEADERS_TIMEOUT_MS = 1000;
    server.headersTimeout = HEADERS_TIMEOUT_MS;
    const socket = connect(port, '127.0.0.1');
    let answer = '';
    socket.on('data', (chunk) => (answer += chunk.toString('latin1')));
    // A byte trickled after the server closed is answered with a reset: expected, not a failure.
    socket.on('error', () => undefined);
    const closed = new Promise<number>((resolve) => socket.on('close', () => resolve(Date.now())));
    const started = Date.now();
    socket.write('GET /api/data/links HTTP/1.1\r\nHost: localhost\r\nX-Slow: ');
    // A byte every 100 ms: the connection is busy, yet never a complete header block.
    const trickle = setInterval(() => socket.writable && socket.write('a'), 100);
    try {
      await request(server).get('/health/live').expect(200);
      const closedAt = await closed;
      expect(answer).toMatch(/^HTTP\/1\.1 408/);
      expect(JSON.parse(parseAnswer(answer).body)).toMatchObject({ status: 408 });
      // Not before the headers timeout, however busy the client keeps the connection; after
      // it, at the server's next look for late requests (each second). The bound is far from
      // both that and a connection kept open by the trickle (never closed).
      expect(closedAt - started).toBeGreaterThanOrEqual(HEADERS_TIMEOUT_MS);
      expect(closedAt - started).toBeLessThan(HEADERS_TIMEOUT_MS * 10);
    } finally {
      clearInterval(trickle);
      socket.destroy();
      server.headersTimeout = 10_000;
    }
  });

  it('is still serving afterwards', async () => {
    await request(t.app.getHttpServer()).get('/health/live').expect(200);
    await request(t.app.getHttpServer())
      .get('/api/data/links')
      .set('Authorization', 'Bearer test-key-primary')
      .expect(200);
  });
});
