import zlib from 'node:zlib';
import etag from 'etag';
import { fetchRaw, renderServer, RenderServer } from '../../test/support/render-server';
import { SharedRender } from './shared-render';
import { Detached } from './streamed-body';

const tick = () => new Promise((resolve) => setTimeout(resolve, 20));

describe('SharedRender', () => {
  let render: SharedRender<number>;
  let detached: Detached<number>[];
  let served: RenderServer;
  let url: string;
  const joined = (requests: number) => served.joined(requests);
  const renderOf = (maxKeptBytes: number) =>
    new SharedRender<number>(maxKeptBytes, (receiver) => detached.push(receiver));

  beforeAll(async () => {
    served = await renderServer((req, res) => render.serve(req, res));
    url = served.url;
  });
  beforeEach(() => {
    served.reset();
    detached = [];
  });
  afterAll(() => served.server.close());

  it('sends a body within the kept size to every request that joined, with the ETag of its bytes', async () => {
    render = renderOf(100);
    render.begin('W/"streamed"');
    const answers = [fetchRaw(url), fetchRaw(url, { 'Accept-Encoding': 'gzip' })];
    await joined(2);
    await render.write('{"data":[', 0);
    await render.write('1,2', 1);
    await render.write(']}', 2);
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
    render = renderOf(10);
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
    for (const [i, piece] of pieces.entries()) await render.write(piece, i);
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
    // One gzip stream for the two gzip requests: each piece written once (and flushed, empty).
    const compressed = compressors.mock.calls.filter(([chunk]) => (chunk as Buffer).length > 0);
    expect(compressed.length).toBeLessThanOrEqual(pieces.length);
    compressors.mockRestore();
  });

  it('answers a request whose ETag matches the stream with a 304', async () => {
    render = renderOf(1);
    render.begin('W/"streamed"');
    const answer = fetchRaw(url, { 'If-None-Match': 'W/"streamed"' });
    await joined(1);
    await render.write('more than one byte', 0);
    render.end();
    expect(await answer).toMatchObject({ status: 304, body: Buffer.alloc(0) });
  });

  it('cuts every response when the render fails after streaming began: none looks complete', async () => {
    render = renderOf(4);
    render.begin('W/"streamed"');
    const answers = [fetchRaw(url), fetchRaw(url, { 'Accept-Encoding': 'gzip' })];
    await joined(2);
    await render.write('["first piece"', 0);
    await tick();
    render.fail(new Error('the database went away'));
    const [plain, gzipped] = await Promise.all(answers);
    expect(plain).toMatchObject({ status: 200, complete: false });
    // Cut before its compressor had output anything: no response at all.
    expect([0, 200]).toContain(gzipped.status);
    expect(gzipped.complete).toBe(false);
  });

  it('answers the failure itself when it comes before anything was sent', async () => {
    render = renderOf(100);
    const answer = fetchRaw(url);
    await joined(1);
    await render.write('["first piece"', 0);
    render.fail(new Error('the database went away'));
    expect(await answer).toMatchObject({ status: 500, complete: true });
  });
});
