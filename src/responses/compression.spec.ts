import { get, IncomingHttpHeaders, Server } from 'node:http';
import { AddressInfo } from 'node:net';
import zlib from 'node:zlib';
import express from 'express';
import { FairSlots } from '../limits/fair-slots';
import { compressionMiddleware } from './compression';

const BODY = JSON.stringify({ data: 'x'.repeat(4000) });

describe('compressionMiddleware', () => {
  const turns = new FairSlots(1, Infinity);
  let callbacks = 0;
  const app = express();
  app.use(compressionMiddleware(() => turns.acquireInTurn('')));
  app.get('/whole', (_req, res) => void res.type('json').send(BODY));
  app.get('/whole-with-callback', (_req, res) => {
    res.type('json').setHeader('Content-Length', Buffer.byteLength(BODY));
    res.end(BODY, () => callbacks++);
  });
  app.get('/ended-twice', (_req, res) => {
    res.type('json').send(BODY);
    res.end();
  });
  let closed = 0;
  app.get('/counted', (_req, res) => {
    res.on('close', () => closed++);
    res.type('json').send(BODY);
  });
  app.get('/in-pieces', (_req, res) => {
    res.type('json').write(BODY.slice(0, 2000));
    res.end(BODY.slice(2000));
  });
  app.get('/encoded-ahead', (_req, res) => {
    res.type('json').setHeader('Content-Encoding', 'gzip');
    res.end(zlib.gzipSync(BODY));
  });
  let server: Server;
  beforeAll(
    () => new Promise<void>((resolve) => (server = app.listen(0, '127.0.0.1', () => resolve()))),
  );
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  /** The response as sent, undecoded, to a request accepting `encoding`. */
  const asSent = (path: string, encoding: string) =>
    new Promise<{ headers: IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
      const { port } = server.address() as AddressInfo;
      const headers = { 'Accept-Encoding': encoding };
      get({ host: '127.0.0.1', port, path, headers, agent: false }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ headers: res.headers, body: Buffer.concat(chunks) }));
      }).on('error', reject);
    });

  it('sends a whole body compressed, with its length, and calls back once it is sent', async () => {
    for (const path of ['/whole', '/whole-with-callback']) {
      const res = await asSent(path, 'gzip');
      expect(res.headers['content-encoding']).toBe('gzip');
      expect(Number(res.headers['content-length'])).toBe(res.body.length);
      expect(zlib.gunzipSync(res.body).toString()).toBe(BODY);
    }
    expect(callbacks).toBe(1);
  });

  it('sends the body of the first end, whatever ends follow it', async () => {
    const res = await asSent('/ended-twice', 'gzip');
    expect(res.headers['content-encoding']).toBe('gzip');
    expect(zlib.gunzipSync(res.body).toString()).toBe(BODY);
  });

  it('compresses nothing for a client that left while its body waited for a turn', async () => {
    const held = await turns.acquireInTurn('');
    const gzip = jest.spyOn(zlib, 'gzip');
    try {
      const { port } = server.address() as AddressInfo;
      const headers = { 'Accept-Encoding': 'gzip' };
      const left = get({ host: '127.0.0.1', port, path: '/counted', headers, agent: false });
      left.on('error', () => undefined);
      while (turns.load.waiting === 0) await new Promise((resolve) => setTimeout(resolve, 5));
      left.destroy();
      while (closed === 0) await new Promise((resolve) => setTimeout(resolve, 5));
      held();
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(gzip).not.toHaveBeenCalled();
      expect(turns.load).toEqual({ running: 0, waiting: 0 });
    } finally {
      gzip.mockRestore();
    }
  });

  it('leaves a body written in pieces, or encoded ahead, as it is', async () => {
    const pieces = await asSent('/in-pieces', 'gzip');
    expect(pieces.headers['content-encoding']).toBeUndefined();
    expect(pieces.body.toString()).toBe(BODY);
    const ahead = await asSent('/encoded-ahead', 'br');
    expect(ahead.headers['content-encoding']).toBe('gzip');
    expect(zlib.gunzipSync(ahead.body).toString()).toBe(BODY);
  });

  it('gives its turn back when compressing failed, and sends that body as it is', async () => {
    const gzip = jest
      .spyOn(zlib, 'gzip')
      .mockImplementationOnce(((_body: Buffer, done: (error: Error) => void) =>
        done(new Error('zlib failed'))) as unknown as typeof zlib.gzip);
    try {
      const answers = await Promise.all([1, 2].map(() => asSent('/whole', 'gzip')));
      const encodings = answers.map(({ headers }) => headers['content-encoding']);
      expect(encodings.sort()).toEqual(['gzip', undefined]);
      const failed = answers.find(({ headers }) => headers['content-encoding'] === undefined);
      expect(failed?.body.toString()).toBe(BODY);
      expect(turns.load).toEqual({ running: 0, waiting: 0 });
    } finally {
      gzip.mockRestore();
    }
  });
});
