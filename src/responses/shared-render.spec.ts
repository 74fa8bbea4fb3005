import { get, IncomingMessage, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import zlib from 'node:zlib';
import etag from 'etag';
import express, { Request, Response } from 'express';
import { useIfNoneMatchFreshness } from './caching';
import { SharedRender } from './shared-render';

interface Received {
  status: number;
  headers: IncomingMessage['headers'];
  body: Buffer;
  /** Whether the body ended as HTTP says a complete one does. */
  complete: boolean;
}

/** A server whose every request joins `current()`, the render the test drives. */
async function serving(current: () => SharedRender): Promise<{ url: string; server: Server }> {
  const app = express();
  useIfNoneMatchFreshness(app.request);
  app.get('/', (req: Request, res: Response) => {
    arrivals += 1;
    res.type('application/json');
    current()
      .serve(req, res)
      .catch(() => (res.headersSent ? res.destroy() : res.status(500).end('failed')));
  });
  const server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`, server };
}

/** The response as received; a connection cut before any response is status 0, incomplete. */
function fetchRaw(url: string, headers: Record<string, string> = {}): Promise<Received> {
  return new Promise((resolve) => {
    get(url, { headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', () => undefined);
      res.on('close', () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body: Buffer.concat(chunks),
          complete: res.complete,
        }),
      );
    }).on('error', () =>
      resolve({ status: 0, headers: {}, body: Buffer.alloc(0), complete: false }),
    );
  });
}

const tick = () => new Promise((resolve) => setTimeout(resolve, 20));

// Requests that reached the render in the current test: a test writes once all have joined.
let arrivals = 0;
async function joined(requests: number): Promise<void> {
  while (arrivals < requests) await tick();
}

describe('SharedRender', () => {
  let render: SharedRender;
  let url: string;
  let server: Server;

  beforeAll(async () => ({ url, server } = await serving(() => render)));
  beforeEach(() => (arrivals = 0));
  afterAll(() => server.close());

  it('sends a body within the kept size to every request that joined, with the ETag of its bytes', async () => {
    render = new SharedRender(100);
    render.begin('W/"streamed"');
    const answers = [fetchRaw(url), fetchRaw(url, { 'Accept-Encoding': 'gzip' })];
    await joined(2);
    await render.write('{"data":[');
    await render.write('1,2');
    await render.write(']}');
    const kept = render.end();
    const body = Buffer.from('{"data":[1,2]}');
    expect(kept?.body.identity).toEqual(body);
    for (const answer of await Promise.all(answers)) {
      expect(answer).toMatchObject({ status: 200, body, complete: true });
      expect(answer.headers.etag).toBe(etag(body, { weak: true }));
      expect(answer.headers['content-length']).toBe(String(body.length));
    }
  });

  it('streams a longer body as it is written, compressed once per encoding, with the streamed ETag', async () => {
    render = new SharedRender(10);
    render.begin('W/"streamed"');
    const asked = ['identity', 'gzip', 'br', 'gzip'];
    const answers = asked.map((encoding) => fetchRaw(url, { 'Accept-Encoding': encoding }));
    await joined(asked.length);
    const compressors = jest.spyOn(zlib.Gzip.prototype, 'write');
    const pieces = [
      '[',
      ...Array.from({ length: 300 }, (_, i) => `${i > 0 ? ',' : ''}"${i}"`),
      ']',
    ];
    for (const piece of pieces) await render.write(piece);
    expect(render.isJoinable).toBe(false);
    expect(render.end()).toBeUndefined();
    const body = Buffer.from(pieces.join(''));
    const received = await Promise.all(answers);
    const decoded = received.map(({ headers, body: sent }) =>
      headers['content-encoding'] === 'gzip'
        ? zlib.gunzipSync(sent)
        : headers['content-encoding'] === 'br'
          ? zlib.brotliDecompressSync(sent)
          : sent,
    );
    expect(received.map((answer) => answer.headers['content-encoding'])).toEqual([
      undefined,
      'gzip',
      'br',
      'gzip',
    ]);
    for (const [i, answer] of received.entries()) {
      expect(answer).toMatchObject({ status: 200, complete: true });
      expect(answer.headers.etag).toBe('W/"streamed"');
      expect(answer.headers['transfer-encoding']).toBe('chunked');
      expect(decoded[i]).toEqual(body);
    }
    // One gzip stream for the two gzip requests: each piece written once.
    expect(compressors.mock.calls.length).toBeLessThanOrEqual(pieces.length);
    compressors.mockRestore();
  });

  it('answers a request whose ETag matches the stream with a 304', async () => {
    render = new SharedRender(1);
    render.begin('W/"streamed"');
    const answer = fetchRaw(url, { 'If-None-Match': 'W/"streamed"' });
    await joined(1);
    await render.write('more than one byte');
    render.end();
    expect(await answer).toMatchObject({ status: 304, body: Buffer.alloc(0) });
  });

  it('cuts every response when the render fails after streaming began: none looks complete', async () => {
    render = new SharedRender(4);
    render.begin('W/"streamed"');
    const answers = [fetchRaw(url), fetchRaw(url, { 'Accept-Encoding': 'gzip' })];
    await joined(2);
    await render.write('["first piece"');
    await tick();
    render.fail(new Error('the database went away'));
    const [plain, gzipped] = await Promise.all(answers);
    expect(plain).toMatchObject({ status: 200, complete: false });
    // Cut before its compressor had output anything: no response at all.
    expect([0, 200]).toContain(gzipped.status);
    expect(gzipped.complete).toBe(false);
  });

  it('answers the failure itself when it comes before anything was sent', async () => {
    render = new SharedRender(100);
    const answer = fetchRaw(url);
    await joined(1);
    await render.write('["first piece"');
    render.fail(new Error('the database went away'));
    expect(await answer).toMatchObject({ status: 500, complete: true });
  });

  it('waits for a receiver that has not taken the last piece, and goes on once it has left', async () => {
    render = new SharedRender(1);
    render.begin('W/"streamed"');
    const request = get(url);
    let response: IncomingMessage | undefined;
    request.on('response', (res) => {
      response = res;
      res.pause();
    });
    request.on('error', () => undefined);
    await joined(1);
    const big = 'x'.repeat(1024 * 1024);
    let written = 0;
    const writing = (async () => {
      for (let i = 0; i < 64; i++) {
        await render.write(big);
        written++;
      }
    })();
    await new Promise((resolve) => setTimeout(resolve, 300));
    // The socket's buffers hold a few pieces at most: the render waits for its reader.
    expect(written).toBeLessThan(16);
    response?.destroy();
    await expect(writing).rejects.toThrow('Every receiver of the list has left');
  });
});
