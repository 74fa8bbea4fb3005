import { AddressInfo } from 'node:net';
import etag from 'etag';
import express, { Request, Response } from 'express';
import { useIfNoneMatchFreshness } from './caching';
import { ChunkedBody } from './chunked-body';

const bodyOf = (...pieces: string[]) => {
  const body = new ChunkedBody();
  for (const piece of pieces) body.append(piece);
  return body;
};

describe('ChunkedBody', () => {
  it.each([[[]], [['']], [['{"a":1}']], [['{"data":[', '"é🙂"', ',"x"', ']}']]])(
    'has the length and the weak ETag Express gives the whole body (%j)',
    (pieces: string[]) => {
      const body = bodyOf(...pieces);
      const whole = Buffer.from(pieces.join(''));
      expect(Buffer.concat(body.chunks)).toEqual(whole);
      expect(body.length).toBe(whole.length);
      expect(body.weakEtag()).toBe(etag(whole, { weak: true }));
    },
  );

  describe('send', () => {
    const pieces = ['{"data":[', '1'.repeat(100_000), ',2', ']}'];
    const whole = pieces.join('');
    let url: string;
    let close: () => void;

    beforeAll(async () => {
      const app = express();
      // As the API answers If-None-Match (fetch sends Cache-Control: no-cache with it).
      useIfNoneMatchFreshness(app.request);
      app.get('/', (req: Request, res: Response) => {
        const body = bodyOf(...pieces);
        res.setHeader('ETag', body.weakEtag());
        body.send(req, res);
      });
      const server = app.listen(0, '127.0.0.1');
      await new Promise((resolve) => server.once('listening', resolve));
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`;
      close = () => server.close();
    });
    afterAll(() => close());

    it('sends every piece, in order, with the length', async () => {
      const res = await fetch(url);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-length')).toBe(String(whole.length));
      expect(await res.text()).toBe(whole);
    });

    it('answers a matching If-None-Match with a 304 and no body', async () => {
      const { headers } = await fetch(url);
      const res = await fetch(url, { headers: { 'If-None-Match': headers.get('etag') ?? '' } });
      expect(res.status).toBe(304);
      expect(await res.text()).toBe('');
    });

    it('answers HEAD with the length and no body', async () => {
      const res = await fetch(url, { method: 'HEAD' });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-length')).toBe(String(whole.length));
      expect(await res.text()).toBe('');
    });
  });
});
