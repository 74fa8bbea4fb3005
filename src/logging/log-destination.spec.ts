import fs, { mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { waitFor } from '../../test/support/wait-for';
import { createLogDestination, LOG_BATCH_CHARS, LOG_FLUSH_INTERVAL_MS } from './log-destination';

describe('createLogDestination', () => {
  let directory: string;
  let file: string;
  let fd: number;
  beforeEach(() => {
    directory = mkdtempSync(join(tmpdir(), 'log-destination-'));
    file = join(directory, 'out.log');
    fd = openSync(file, 'w');
  });
  afterEach(() => {
    jest.useRealTimers();
    jest.restoreAllMocks();
    rmSync(directory, { recursive: true, force: true });
  });

  // Ends the destination, which closes its file descriptor and stops its flush timer.
  const end = (destination: ReturnType<typeof createLogDestination>) =>
    new Promise((resolve) => destination.once('close', resolve).end());

  // The asynchronous writes handed to libuv, as text: when they are made is what the
  // destination decides; when the thread pool completes them is the machine's business.
  const asyncWrites = () => {
    const writes = jest.spyOn(fs, 'write');
    return () => writes.mock.calls.map(([, data]) => String(data));
  };
  /** The file's content once it is `expected`; a wait, not a deadline. */
  const contentOnceWritten = (expected: string) =>
    waitFor(() => readFileSync(file, 'utf8') === expected, {
      what: `the file to hold ${expected.length} characters`,
    });

  it('writes asynchronously, a lone line at the next periodic flush', async () => {
    jest.useFakeTimers({ doNotFake: ['nextTick', 'setImmediate', 'queueMicrotask'] });
    const written = asyncWrites();
    const destination = createLogDestination(fd);
    // The write is handed to libuv's thread pool instead of the event loop.
    expect(destination).toMatchObject({ sync: false });
    destination.write('{"msg":"one"}\n');
    jest.advanceTimersByTime(LOG_FLUSH_INTERVAL_MS - 1);
    expect(written()).toEqual([]);
    jest.advanceTimersByTime(1);
    expect(written()).toEqual(['{"msg":"one"}\n']);
    jest.useRealTimers();
    await contentOnceWritten('{"msg":"one"}\n');
    await end(destination);
  });

  it('writes at once when a batch has gathered', async () => {
    const written = asyncWrites();
    const destination = createLogDestination(fd);
    const line = `{"msg":"${'x'.repeat(100)}"}\n`;
    const lines = line.repeat(Math.ceil(LOG_BATCH_CHARS / line.length) + 1);
    destination.write(lines);
    expect(written()).toEqual([lines]);
    await contentOnceWritten(lines);
    await end(destination);
  });

  it('measures a batch once, not its pending lines once per line', async () => {
    const destination = createLogDestination(fd);
    const line = `{"msg":"${'x'.repeat(100)}"}\n`;
    const count = Math.floor(LOG_BATCH_CHARS / line.length);
    const measured = jest.spyOn(Buffer, 'byteLength');
    for (let i = 0; i < count; i++) destination.write(line);
    expect(measured).not.toHaveBeenCalled();
    destination.write(line);
    expect(measured.mock.calls.length).toBeLessThanOrEqual(2);
    measured.mockRestore();
    await contentOnceWritten(line.repeat(count + 1));
    await end(destination);
  });

  it('writes the lines still gathered, in order, when flushed synchronously (as on exit)', async () => {
    const destination = createLogDestination(fd);
    const line = (n: number) => `{"n":${n}}\n`;
    const first = `{"n":0,"pad":"${'x'.repeat(LOG_BATCH_CHARS)}"}\n`;
    destination.write(first);
    await contentOnceWritten(first);
    for (let n = 1; n <= 3; n++) destination.write(line(n));
    destination.flushSync();
    expect(readFileSync(file, 'utf8')).toBe(first + line(1) + line(2) + line(3));
    await end(destination);
  });

  it('retries a full pipe when flushed synchronously, losing nothing', async () => {
    const destination = createLogDestination(fd);
    destination.write('{"n":1}\n');
    const full = Object.assign(new Error('EAGAIN: resource temporarily unavailable'), {
      code: 'EAGAIN',
    });
    const writes = jest.spyOn(fs, 'writeSync').mockImplementationOnce(() => {
      throw full;
    });
    destination.flushSync();
    expect(writes).toHaveBeenCalledTimes(2);
    writes.mockRestore();
    expect(readFileSync(file, 'utf8')).toBe('{"n":1}\n');
    await end(destination);
  });
});
