import { PassThrough } from 'node:stream';
import { Request } from 'express';
import { chunkedBodyFits } from './request-size';

const body = () => new PassThrough() as unknown as Request & PassThrough;

describe('chunkedBodyFits', () => {
  it('is true once a body within 1 KiB has ended', async () => {
    const req = body();
    const fits = chunkedBodyFits(req);
    req.end('x'.repeat(1024));
    await expect(fits).resolves.toBe(true);
  });

  it('is false as soon as the body goes past 1 KiB, reading no further', async () => {
    const req = body();
    const fits = chunkedBodyFits(req);
    req.write('x'.repeat(1025));
    await expect(fits).resolves.toBe(false);
    expect(req.isPaused()).toBe(true);
  });

  it('is false when the client went away before or while it was read', async () => {
    const gone = body();
    gone.destroy();
    await expect(chunkedBodyFits(gone)).resolves.toBe(false);
    const leaving = body();
    const fits = chunkedBodyFits(leaving);
    leaving.write('x');
    leaving.destroy();
    await expect(fits).resolves.toBe(false);
  });
});
