import { once } from 'node:events';
import { connect } from 'node:net';
import { Worker } from 'node:worker_threads';
import { withinTimeout } from './within-timeout';

describe('withinTimeout', () => {
  // A server on a thread of its own: it answers while this thread's loop is held, and says
  // so through shared memory, which a held loop can still read.
  let server: Worker;
  let port: number;
  const hasAnswered = new Int32Array(new SharedArrayBuffer(4));
  beforeAll(async () => {
    server = new Worker(
      `const { parentPort, workerData } = require('node:worker_threads');
       const server = require('node:net').createServer((socket) =>
         socket.on('data', () => socket.write('pong', () => Atomics.store(workerData, 0, 1))));
       server.listen(0, '127.0.0.1', () => parentPort.postMessage(server.address().port));`,
      { eval: true, workerData: hasAnswered },
    );
    [port] = (await once(server, 'message')) as [number];
  });
  afterAll(() => server.terminate());

  /** Holds the event loop past `ms` and until the reply is sent, as a long task or a throttled CPU does. */
  const holdTheLoop = (ms: number) => {
    const until = performance.now() + ms;
    const giveUpAt = performance.now() + 30_000;
    while (performance.now() < giveUpAt) {
      if (performance.now() >= until && Atomics.load(hasAnswered, 0) === 1) return;
    }
    throw new Error('the server never answered');
  };

  const ping = async () => {
    const socket = connect(port, '127.0.0.1');
    await once(socket, 'connect');
    const answer = once(socket, 'data').then(([data]) => String(data));
    Atomics.store(hasAnswered, 0, 0);
    socket.write('ping\n');
    return { answer, close: () => socket.destroy() };
  };

  it('takes a reply that arrived while the loop was held past the timeout', async () => {
    const { answer, close } = await ping();
    const answered = withinTimeout(answer, 50);
    holdTheLoop(200);
    await expect(answered).resolves.toBe('pong');
    close();
  });

  it('rejects when nothing answers in time', async () => {
    await expect(withinTimeout(new Promise(() => undefined), 50)).rejects.toThrow(
      'no answer within 50 ms',
    );
  });

  it('passes on a failure', async () => {
    await expect(withinTimeout(Promise.reject(new Error('refused')), 50)).rejects.toThrow(
      'refused',
    );
  });
});
