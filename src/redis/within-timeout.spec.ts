import { once } from 'node:events';
import { connect } from 'node:net';
import { Worker } from 'node:worker_threads';
import { withinTimeout } from './within-timeout';

/** Holds the event loop for `ms`, as a long task or a throttled CPU does. */
const holdTheLoop = (ms: number) => {
  const until = performance.now() + ms;
  while (performance.now() < until);
};

describe('withinTimeout', () => {
  // A server on a thread of its own: it answers while this thread's loop is held.
  let server: Worker;
  let port: number;
  beforeAll(async () => {
    server = new Worker(
      `const { parentPort } = require('node:worker_threads');
       const server = require('node:net').createServer((socket) =>
         socket.on('data', () => socket.write('pong')));
       server.listen(0, '127.0.0.1', () => parentPort.postMessage(server.address().port));`,
      { eval: true },
    );
    [port] = (await once(server, 'message')) as [number];
  });
  afterAll(() => server.terminate());

  const ping = async () => {
    const socket = connect(port, '127.0.0.1');
    await once(socket, 'connect');
    const answer = once(socket, 'data').then(([data]) => String(data));
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
