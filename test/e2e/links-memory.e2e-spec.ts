import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { DataSource } from 'typeorm';
import { compiledApp, RunningApi, startCompiledApi } from '../support/compiled-app';
import { bulkLoad, createSuiteDatabase, dropSuiteDatabase } from '../support/database';

// The production start refuses keys under 32 characters.
const KEY = randomBytes(24).toString('base64url');
const LINKS = 400_000;

// A List Links body of 400,000 links (~40 MB) made as one string took more than an 80 MB old
// space and aborted the process; past the kept size it is streamed as it is read, in batches,
// under an ETag named by the content it is read from.
describe('List Links of a table larger than the heap bound allows as one string', () => {
  let dataSource: DataSource;
  let api: RunningApi;

  beforeAll(async () => {
    const mainJs = join(await compiledApp(), 'main.js');
    dataSource = await createSuiteDatabase();
    await bulkLoad(dataSource, (manager) =>
      manager.query(
        `INSERT INTO links (id, created_at, updated_at)
         SELECT 'link-' || lpad(g::text, 6, '0'), now(), now() FROM generate_series(1, $1::int) g`,
        [LINKS],
      ),
    );
    api = await startCompiledApi(mainJs, {
      PATH: process.env.PATH as string,
      NODE_ENV: 'production',
      NODE_OPTIONS: '--max-old-space-size=80 --max-semi-space-size=8',
      DATABASE_URL: process.env.DATABASE_URL as string,
      API_KEYS: KEY,
      CURSOR_SECRET: 'links-memory-cursor-secret-0123456789',
      PORT: '0',
      METRICS_PORT: '0',
    });
  }, 180000);
  afterAll(async () => {
    api?.child.kill('SIGKILL');
    await dropSuiteDatabase(dataSource);
  });

  it('serves the whole list, plain and compressed, under one ETag of its content', async () => {
    const get = (encoding: string, headers = {}) =>
      fetch(`${api.url}/api/data/links`, {
        headers: { Authorization: `Bearer ${KEY}`, 'Accept-Encoding': encoding, ...headers },
      });
    const plain = await get('identity');
    expect(plain.status).toBe(200);
    const body = Buffer.from(await plain.arrayBuffer());
    const tag = plain.headers.get('etag');
    expect(tag).toMatch(/^W\/"links-v1-400000-[0-9-]+"$/);
    expect(plain.headers.get('transfer-encoding')).toBe('chunked');
    const list = JSON.parse(body.toString()) as { data: { id: string }[]; meta: unknown };
    expect(list.meta).toEqual({ total: LINKS });
    expect(list.data.at(-1)?.id).toBe(`link-${LINKS}`);

    const gzip = await get('gzip');
    expect(gzip.headers.get('content-encoding')).toBe('gzip');
    expect(gzip.headers.get('etag')).toBe(tag);
    // fetch decodes it.
    expect(Buffer.from(await gzip.arrayBuffer()).equals(body)).toBe(true);

    const unchanged = await get('gzip', { 'If-None-Match': tag });
    expect(unchanged.status).toBe(304);
    expect(await unchanged.text()).toBe('');
    expect(api.child.exitCode).toBeNull();
  }, 120000);
});
