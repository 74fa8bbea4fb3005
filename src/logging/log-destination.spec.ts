import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLogDestination } from './log-destination';

describe('createLogDestination', () => {
  let directory: string;
  beforeEach(() => (directory = mkdtempSync(join(tmpdir(), 'log-destination-'))));
  afterEach(() => rmSync(directory, { recursive: true, force: true }));

  it('writes asynchronously, and the line arrives', async () => {
    const file = join(directory, 'out.log');
    const fd = openSync(file, 'w');
    const destination = createLogDestination(fd);
    // The write is handed to libuv's thread pool instead of the event loop.
    expect(destination).toMatchObject({ sync: false });
    destination.write('{"msg":"one"}\n');
    for (let wait = 0; wait < 100 && readFileSync(file, 'utf8') === ''; wait++)
      await new Promise((resolve) => setTimeout(resolve, 20));
    expect(readFileSync(file, 'utf8')).toBe('{"msg":"one"}\n');
    closeSync(fd);
  });
});
