import { randomBytes } from 'node:crypto';
import { get, IncomingMessage } from 'node:http';
import { Writable } from 'node:stream';
import zlib from 'node:zlib';
import { fetchRaw, renderServer, RenderServer } from '../../test/support/render-server';
import { Receiver } from './encoded-copies';
import { SharedRender } from './shared-render';
import {
  Detached,
  DETACH_BEHIND_BYTES,
  EVERY_RECEIVER_LEFT,
  goingOnAlone,
  READER_STALL_MS,
  StreamedBody,
} from './streamed-body';

const PIECE_BYTES = 256 * 1024;

/** Pieces that barely compress, so a compressed body is as long as a plain one, nearly. */
const piecesOf = (count: number) =>
  Array.from({ length: count }, () => randomBytes((PIECE_BYTES * 3) / 4).toString('base64'));

/**
 * A request whose response is not read until `read()`; `body` resolves once it closes. It goes
 * on a connection of its own: a kept-alive one that carried a body read at full speed had its
 * receive buffer grown by the kernel as it was read (up to tcp_rmem's maximum, 32 MiB here),
 * which takes a whole body for a reader that reads nothing.
 */
function pausedRequest(url: string, encoding: string) {
  const chunks: Buffer[] = [];
  let response: IncomingMessage | undefined;
  const body = new Promise<{ body: Buffer; complete: boolean }>((resolve) => {
    const headers = { 'Accept-Encoding': encoding };
    const request = get(url, { headers, agent: false }, (res) => {
      response = res;
      res.pause();
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('error', () => undefined);
      res.on('close', () => resolve({ body: Buffer.concat(chunks), complete: res.complete }));
    });
    request.on('error', () => undefined);
  });
  return { body, read: () => response?.resume(), cut: () => response?.destroy() };
}

/** Blocks the event loop, as a pause of the machine or a long collection would. */
function standStill(ms: number): void {
  const until = performance.now() + ms;
  while (performance.now() < until);
}

/**
 * A receiver whose connection takes each piece `taking` — at once (a kernel buffer with room,
 * up to `roomBytes`; then nothing), or a turn of the event loop later (a client that reads).
 */
function receiverTaking(taking: 'at once' | 'a turn later', roomBytes = Infinity): Receiver {
  let took = 0;
  const res = new Writable({
    highWaterMark: 16 * 1024,
    write(chunk: Buffer, _encoding, callback) {
      if (taking === 'a turn later') return void setImmediate(callback);
      took += chunk.length;
      if (took <= roomBytes) callback();
    },
  });
  return { res, resolve: () => undefined, reject: () => undefined } as unknown as Receiver;
}

const decoded = (encoding: string, body: Buffer) =>
  encoding === 'gzip'
    ? zlib.gunzipSync(body)
    : encoding === 'deflate'
      ? zlib.inflateSync(body)
      : encoding === 'br'
        ? zlib.brotliDecompressSync(body)
        : body;

describe('StreamedBody', () => {
  let render: SharedRender<number>;
  let detached: Detached<number>[];
  /** Bytes waiting in the server for each detached receiver when it was detached. */
  let waitingAtDetach: number[];
  let served: RenderServer;
  let paused: ReturnType<typeof pausedRequest>[];
  const pausedReader = (encoding: string) => {
    const reader = pausedRequest(served.url, encoding);
    paused.push(reader);
    return reader;
  };

  beforeAll(async () => (served = await renderServer((req, res) => render.serve(req, res))));
  beforeEach(() => {
    served.reset();
    detached = [];
    waitingAtDetach = [];
    paused = [];
    render = new SharedRender<number>(1, (receiver) => {
      detached.push(receiver);
      waitingAtDetach.push(receiver.receiver.res.writableLength);
    });
    render.begin('W/"streamed"');
  });
  afterEach(() => paused.forEach((reader) => reader.cut()));
  afterAll(() => served.server.close());

  it('waits for its one reader, and detaches it once it takes nothing: the render stops', async () => {
    pausedReader('identity');
    await served.joined(1);
    const pieces = piecesOf(256);
    let written = 0;
    const writing = (async () => {
      for (const [i, piece] of pieces.entries()) {
        await render.write(piece, i);
        written++;
      }
    })();
    await expect(writing).rejects.toThrow(EVERY_RECEIVER_LEFT);
    // It held at most what the socket's buffers take, and goes on after the last piece it got.
    expect(written).toBeLessThan(pieces.length / 2);
    expect(detached.map(({ resume }) => resume)).toEqual([written]);
  }, 20_000);

  it('keeps a reader that reads again through a pause of the whole process (not its stall)', async () => {
    const reader = pausedReader('identity');
    await served.joined(1);
    const pieces = piecesOf(32);
    const writing = (async () => {
      for (const [i, piece] of pieces.entries()) await render.write(piece, i);
      render.end();
    })();
    // While the render waits for it, the reader reads again, and the process stands still past
    // READER_STALL_MS before the sockets are heard from.
    await new Promise((resolve) => setTimeout(resolve, READER_STALL_MS / 3));
    reader.read();
    standStill(READER_STALL_MS * 1.5);
    await writing;
    expect(detached).toEqual([]);
    const answer = await reader.body;
    expect(answer.complete).toBe(true);
    expect(answer.body.equals(Buffer.from(pieces.join('')))).toBe(true);
  }, 20_000);

  it('paces to a reader that reads, not to a kernel buffer that takes pieces without a turn of the loop', async () => {
    // A stopped client's socket takes what its kernel buffers hold with no turn of the event
    // loop; a reading client's bytes move only when the loop polls its socket.
    const reading = receiverTaking('a turn later');
    const stopped = receiverTaking('at once', 4 * DETACH_BEHIND_BYTES);
    const detachedHere: Receiver[] = [];
    const body = new StreamedBody<number>([stopped, reading], ({ receiver }) =>
      detachedHere.push(receiver),
    );
    for (const [i, piece] of piecesOf(64).entries()) await body.write(Buffer.from(piece), i);
    expect(detachedHere).toEqual([stopped]);
  });

  it.each(['identity', 'gzip', 'deflate', 'br'])(
    'goes on without a %s reader that stopped, which then goes on alone to the same body',
    async (encoding) => {
      const slow = pausedReader(encoding);
      const fast = fetchRaw(served.url, { 'Accept-Encoding': encoding });
      await served.joined(2);
      const pieces = piecesOf(96);
      // Written in full while the slow reader reads nothing: no one waits for it.
      for (const [i, piece] of pieces.entries()) await render.write(piece, i);
      render.end();
      const whole = Buffer.from(pieces.join(''));
      const fastAnswer = await fast;
      expect(fastAnswer.complete).toBe(true);
      expect(decoded(encoding, fastAnswer.body).equals(whole)).toBe(true);

      expect(detached).toHaveLength(1);
      const [{ resume }] = detached;
      // Detached once past the bound: by a piece, or what a compressor let out since the last one
      // (Brotli lets out what it held in one block, when its thread gets to it: 2.3 MiB was seen).
      expect(waitingAtDetach[0]).toBeGreaterThan(DETACH_BEHIND_BYTES);
      expect(waitingAtDetach[0]).toBeLessThan(4 * DETACH_BEHIND_BYTES);
      slow.read();
      const alone = await goingOnAlone(detached[0], (again) => detached.push(again));
      for (let i = (resume as number) + 1; i < pieces.length; i++) {
        await alone?.write(Buffer.from(pieces[i]), i);
      }
      alone?.end();
      const slowAnswer = await slow.body;
      expect(slowAnswer.complete).toBe(true);
      expect(decoded(encoding, slowAnswer.body).equals(whole)).toBe(true);
    },
    30_000,
  );
});
