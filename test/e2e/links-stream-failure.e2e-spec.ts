import { get as httpGet, IncomingMessage } from 'node:http';
import { AddressInfo } from 'node:net';
import { DatabaseReader } from '../../src/database/database-reader';
import { LINKS_BATCH_SIZE } from '../../src/links/links.service';
import { AUTH, createTestApp, TestApp } from '../support/create-app';
import { waitFor } from '../support/wait-for';

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

// List Links reads its rows in batches and sends the body only once every batch is in (its
// ETag covers the exact body): a failing later batch must be a 503, never a truncated 200.
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

  it('answers with an error problem, never a partial list, when the second batch fails', async () => {
    // A changed table: the list kept from the request before no longer answers.
    await t.dataSource.query(`UPDATE links SET updated_at = now() WHERE id = 'link-00001'`);
    const reader = t.app.get(DatabaseReader);
    const inSnapshot = reader.inSnapshot.bind(reader);
    let batches = 0;
    jest.spyOn(reader, 'inSnapshot').mockImplementation((read) =>
      inSnapshot((query) =>
        read((text, params) => {
          if (text.includes('LIMIT') && ++batches === 2) {
            return Promise.reject(new Error('connection lost'));
          }
          return query(text, params);
        }),
      ),
    );

    const res = await fetchRaw(url);

    expect(batches).toBe(2);
    // An unexpected error is a 500 (a database outage would be a 503); either way no list.
    expect(res).toMatchObject({ status: 500, complete: true });
    expect(res.body).not.toContain('"data"');
    expect(JSON.parse(res.body)).toMatchObject({ status: 500, title: 'Internal Server Error' });

    // The failure leaves nothing behind: no connection kept mid-transaction, and the next
    // request gets the whole list.
    // (The dropped connection's backend ends a moment after the socket closes.)
    await waitFor(
      async () => {
        const [{ open }] = await t.dataSource.query(
          `SELECT count(*)::int AS open FROM pg_stat_activity
           WHERE datname = current_database() AND state LIKE 'idle in transaction%'`,
        );
        return open === 0;
      },
      { what: 'no connection left in a transaction' },
    );
    jest.restoreAllMocks();
    const next = await fetchRaw(url);
    expect(next).toMatchObject({ status: 200, complete: true });
    expect(JSON.parse(next.body).meta).toEqual({ total: LINKS_BATCH_SIZE + 1 });
  });
});
