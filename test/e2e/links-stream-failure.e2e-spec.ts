import { get as httpGet, IncomingMessage } from 'node:http';
import { AddressInfo } from 'node:net';
import { DatabaseReader } from '../../src/database/database-reader';
import { LINKS_BATCH_SIZE } from '../../src/links/links.service';
import { AUTH, createTestApp, TestApp } from '../support/create-app';

interface Received {
  status: number;
  body: string;
  /** Whether the body ended as HTTP says a complete one does (the last chunk arrived). */
  complete: boolean;
}

function fetchRaw(url: string): Promise<Received> {
  return new Promise((resolve, reject) => {
    httpGet(url, { headers: AUTH }, (res: IncomingMessage) => {
      let body = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (body += chunk));
      // A cut connection surfaces as 'aborted' then 'error'; 'close' comes either way.
      res.on('error', () => undefined);
      res.on('close', () => resolve({ status: res.statusCode ?? 0, body, complete: res.complete }));
    }).on('error', reject);
  });
}

// List Links streams its body in batches; once the first byte is out, a failing later batch
// must cut the connection, so a client can never take a truncated list for a whole one.
describe('List Links when a later batch fails', () => {
  let t: TestApp;
  let url: string;

  beforeAll(async () => {
    t = await createTestApp();
    await t.dataSource.query(
      `INSERT INTO links (id, created_at, updated_at)
       SELECT 'link-' || lpad(g::text, 5, '0'), now(), now() FROM generate_series(1, $1::int) g`,
      [LINKS_BATCH_SIZE + 1],
    );
    const server = t.app.getHttpServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/data/links`;
  });
  afterAll(() => t.close());
  afterEach(() => jest.restoreAllMocks());

  it('sends the whole list when every batch succeeds', async () => {
    const res = await fetchRaw(url);
    expect(res).toMatchObject({ status: 200, complete: true });
    expect(JSON.parse(res.body).meta).toEqual({ total: LINKS_BATCH_SIZE + 1 });
  });

  it('cuts the connection, leaving no valid JSON document, when the second batch fails', async () => {
    const reader = t.app.get(DatabaseReader);
    const query = reader.query.bind(reader);
    let calls = 0;
    jest.spyOn(reader, 'query').mockImplementation((text, params) => {
      calls++;
      return calls === 2 ? Promise.reject(new Error('connection lost')) : query(text, params);
    });

    const res = await fetchRaw(url);

    expect(calls).toBe(2);
    expect(res.status).toBe(200);
    expect(res.body.startsWith('{"data":[')).toBe(true);
    expect(res.complete).toBe(false);
    expect(() => JSON.parse(res.body)).toThrow(SyntaxError);
  });
});
