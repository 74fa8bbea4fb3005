import fs, { mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogDestination, LOG_BATCH_CHARS, LOG_FLUSH_INTERVAL_MS } from './log-destination';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('createLogDestination', () => {
  let directory: string;
  let file: string;
  let fd: number;
  beforeEach(() => {
    directory = mkdtempSync(join(tmpdir(), 'log-destination-'));
    file = join(directory, 'out.log');
    fd = openSync(file, 'w');
  });
  afterEach(() => rmSync(directory, { recursive: true, force: true }));

  // Ends the destination, which closes its file descriptor and stops its flush timer.
  const end = (destination: ReturnType<typeof createLogDestination>) =>
    new Promise((resolve) => destination.once('close', resolve).end());

  async function contentWithin(ms: number): Promise<string> {
    for (const started = Date.now(); Date.now() - started < ms; await pause(20)) {
      const content = readFileSync(file, 'utf8');
      if (content !== '') return content;
    }
    return readFileSync(file, 'utf8');
  }

  it('writes asynchronously, a lone line within the flush interval', async () => {
    const destination = createLogDestination(fd);
    // The write is handed to libuv's thread pool instead of the event loop.
    expect(destination).toMatchObject({ sync: false });
    destination.write('{"msg":"one"}\n');
    await pause(LOG_FLUSH_INTERVAL_MS / 4);
    expect(readFileSync(file, 'utf8')).toBe('');
    expect(await contentWithin(LOG_FLUSH_INTERVAL_MS * 3)).toBe('{"msg":"one"}\n');
    await end(destination);
  });

  it('writes at once when a batch has gathered', async () => {
    const destination = createLogDestination(fd);
    const line = `{"msg":"${'x'.repeat(100)}"}\n`;
    const lines = line.repeat(Math.ceil(LOG_BATCH_CHARS / line.length) + 1);
    destination.write(lines);
    expect(await contentWithin(LOG_FLUSH_INTERVAL_MS / 2)).toBe(lines);
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
    expect(await contentWithin(LOG_FLUSH_INTERVAL_MS / 2)).toBe(line.repeat(count + 1));
    await end(destination);
  });

  it('writes the lines still gathered, in order, when flushed synchronously (as on exit)', async () => {
    const destination = createLogDestination(fd);
    const line = (n: number) => `{"n":${n}}\n`;
    destination.write(`{"n":0,"pad":"${'x'.repeat(LOG_BATCH_CHARS)}"}\n`);
    const first = await contentWithin(LOG_FLUSH_INTERVAL_MS / 2);
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
