import zlib from 'node:zlib';
import { Request, Response } from 'express';
import { PrecompressedBody } from './precompressed-body';

const asked = (acceptEncoding?: string, method = 'GET') =>
  ({ method, headers: { 'accept-encoding': acceptEncoding } }) as unknown as Request;
const JSON_TYPE = 'application/json; charset=utf-8';
const answer = (headers: Record<string, string> = { 'content-type': JSON_TYPE }) =>
  ({ getHeader: (name: string) => headers[name.toLowerCase()] }) as unknown as Response;

describe('PrecompressedBody', () => {
  const identity = Buffer.from(JSON.stringify({ data: 'x'.repeat(5000) }));
  afterEach(() => jest.restoreAllMocks());

  it.each([
    ['gzip', 'gzip', zlib.gunzipSync],
    ['br', 'br', zlib.brotliDecompressSync],
    ['deflate', 'deflate', zlib.inflateSync],
    ['gzip, deflate, br', 'br', zlib.brotliDecompressSync],
    ['deflate, gzip', 'gzip', zlib.gunzipSync],
    ['br;q=0.5, gzip', 'gzip', zlib.gunzipSync],
  ])('asked %j, sends %s: the same bytes once decoded', async (header, encoding, decode) => {
    const sent = await new PrecompressedBody(identity).for(asked(header), answer());
    expect(sent.encoding).toBe(encoding);
    expect(decode(sent.body).equals(identity)).toBe(true);
  });

  it.each([undefined, '', 'identity', 'gzip;q=0', 'compress', 'br;q=0, gzip;q=0, deflate;q=0'])(
    'asked %j, sends the body as it is',
    async (header) => {
      const sent = await new PrecompressedBody(identity).for(asked(header), answer());
      expect(sent).toEqual({ body: identity });
    },
  );

  it('sends HEAD and a body of 1024 bytes or fewer as they are', async () => {
    expect(await new PrecompressedBody(identity).for(asked('gzip', 'HEAD'), answer())).toEqual({
      body: identity,
    });
    const small = Buffer.alloc(1024, 'a');
    expect(await new PrecompressedBody(small).for(asked('gzip'), answer())).toEqual({
      body: small,
    });
  });

  it.each([
    ['a type compression leaves alone', { 'content-type': 'image/png' }],
    ['no Content-Type', {}],
    [
      'Cache-Control: no-transform',
      { 'content-type': JSON_TYPE, 'cache-control': 'private, no-transform' },
    ],
  ])('sends the body as it is for %s, as compression would', async (_name, headers) => {
    expect(await new PrecompressedBody(identity).for(asked('gzip'), answer(headers))).toEqual({
      body: identity,
    });
  });

  it('compresses once per encoding, however many requests ask', async () => {
    const gzip = jest.spyOn(zlib, 'gzip');
    const body = new PrecompressedBody(identity);
    const sent = await Promise.all([1, 2, 3].map(() => body.for(asked('gzip'), answer())));
    await body.for(asked('br'), answer());
    expect(gzip).toHaveBeenCalledTimes(1);
    expect(sent[1].body).toBe(sent[0].body);
    expect((await body.for(asked('gzip'), answer())).body).toBe(sent[0].body);
  });
});
