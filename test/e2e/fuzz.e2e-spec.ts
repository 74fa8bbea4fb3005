import fc from 'fast-check';
import request from 'supertest';
import { Client } from '../../src/clients/client.entity';
import { columnOf } from '../../src/database/entity-columns';
import { CLIENT_FILTERS, LIST_CLIENTS_PARAMETERS } from '../support/client-filters';
import { AUTH, createTestApp, TestApp } from '../support/create-app';
import { insertClients, insertLinks } from '../support/fixtures';
import { OpenApiChecker } from '../support/openapi';

// Property-based fuzzing against the real app and database. CI uses the fixed seed; a long
// local campaign: FUZZ_SEED=$RANDOM FUZZ_RUNS=20000 npx jest test/e2e/fuzz
const fuzz = {
  seed: Number(process.env.FUZZ_SEED ?? 20261123),
  numRuns: Number(process.env.FUZZ_RUNS ?? 150),
};

const LINKS = ['link-a', 'link-b', "link 'c' ✓"];
const STATUSES = ['new', 'connected', 'suspended'];

const NAMES = LIST_CLIENTS_PARAMETERS.map(({ name }) => name);
const VALUES = [
  '',
  '1',
  '2',
  '0',
  '-1',
  '007',
  '1.5',
  '1e2',
  '0x10',
  ' 2',
  '+2',
  '2147483647',
  '2147483648',
  '1000',
  '1001',
  'true',
  'false',
  'TRUE',
  'new',
  'connected',
  'suspended',
  ...LINKS,
  '2025-01-01T00:00:00Z',
  '2025-01-01T00:00:00+16:00',
  '2025-02-30T00:00:00Z',
  '%00',
  '\u0000',
];

// Raw text goes out as is, except '#', which would end the query and start a fragment.
const encode = (text: string, raw: boolean) =>
  raw ? text.replace(/#/g, '%23') : encodeURIComponent(text);

/** One `name=value` pair: mostly meaningful names and values, sometimes anything at all. */
const pair = fc
  .record({
    name: fc.oneof(
      { weight: 5, arbitrary: fc.constantFrom(...NAMES) },
      fc.constantFrom('__proto__', 'constructor', '[page]', 'status[]', 'page[0]', 'toString', ''),
      fc.string({ maxLength: 12 }),
    ),
    value: fc.oneof(
      { weight: 5, arbitrary: fc.constantFrom(...VALUES) },
      fc.string({ unit: 'binary', maxLength: 40 }),
      fc.string({ maxLength: 300 }),
    ),
    rawName: fc.boolean(),
    rawValue: fc.boolean(),
    withEquals: fc.boolean(),
  })
  .map(({ name, value, rawName, rawValue, withEquals }) =>
    withEquals || value !== ''
      ? `${encode(name, rawName)}=${encode(value, rawValue)}`
      : encode(name, rawName),
  );

const queryString = fc.array(pair, { maxLength: 6 }).map((pairs) => pairs.join('&'));

describe('Fuzzing (fast-check, fixed seed)', () => {
  let t: TestApp;
  let checker: OpenApiChecker;
  const server = () => t.app.getHttpServer();

  beforeAll(async () => {
    t = await createTestApp();
    await insertLinks(
      t.dataSource,
      LINKS.map((id) => ({ id })),
    );
    await insertClients(
      t.dataSource,
      Array.from({ length: 150 }, (_, i) => ({
        id: i % 7 === 0 ? `c-${i} '✓'` : `c-${i}`,
        linkId: LINKS[i % 3],
        status: STATUSES[(i * 5) % 3],
        isDeleted: i % 4 === 0,
        createdAt: new Date(Date.UTC(2026, 0, 1) + Math.floor(i / 3) * 60_000).toISOString(),
      })),
    );
    checker = new OpenApiChecker((await request(server()).get('/docs/openapi.json')).body);
  });
  afterAll(() => t.close());

  const expectProblem = (res: request.Response) => {
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.body).toMatchObject({
      type: 'about:blank',
      status: res.status,
      requestId: expect.any(String),
    });
  };

  /** What the database itself says the page is, for a query the contract accepts. */
  async function reference(params: URLSearchParams) {
    const conditions: string[] = [];
    const values: unknown[] = [];
    for (const { name, property, operator } of CLIENT_FILTERS) {
      const field = property as keyof Client & string;
      if (params.has(name)) {
        values.push(params.get(name));
        conditions.push(`${columnOf(Client, field)} ${operator} $${values.length}`);
      }
    }
    const where = conditions.length ? `WHERE ${conditions.join(' AND ')}` : '';
    const limit = Number(params.get('limit') ?? 100);
    const offset = (Number(params.get('page') ?? 1) - 1) * limit;
    const [{ total }] = await t.dataSource.query(
      `SELECT count(*)::int AS total FROM clients ${where}`,
      values,
    );
    const rows = await t.dataSource.query(
      `SELECT id FROM clients ${where} ORDER BY created_at, id COLLATE "C" LIMIT ${limit} OFFSET ${offset}`,
      values,
    );
    return { total, ids: rows.map((row: { id: string }) => row.id) };
  }

  it('List Clients: any query is a 200 that agrees with SQL, or a 400 problem; never a 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(queryString, async (query) => {
        const res = await request(server()).get(`/api/data/clients?${query}`).set(AUTH);
        expect([200, 400]).toContain(res.status);
        checker.expectValid(res, '/api/data/clients');
        if (res.status === 400) {
          expectProblem(res);
          expect(res.body.errors.length).toBeGreaterThan(0);
          return;
        }
        const params = new URLSearchParams(query);
        if (params.get('linkId')?.includes('\u0000') || params.has('cursor')) return;
        const expected = await reference(params);
        expect(res.body.meta.total).toBe(expected.total);
        expect(res.body.data.map((c: { id: string }) => c.id)).toEqual(expected.ids);
      }),
      fuzz,
    );
  });

  it('List Clients: every valid query is a 200 that agrees with SQL', async () => {
    const validQuery = fc
      .record(
        {
          page: fc.integer({ min: 1, max: 30 }).map(String),
          limit: fc.integer({ min: 1, max: 1000 }).map(String),
          linkId: fc.constantFrom(...LINKS, 'no-such-link'),
          isDeleted: fc.constantFrom('true', 'false'),
          status: fc.constantFrom('new', 'connected'),
        },
        { requiredKeys: [] },
      )
      .map((fields) => new URLSearchParams(fields));
    await fc.assert(
      fc.asyncProperty(validQuery, async (params) => {
        const res = await request(server())
          .get(`/api/data/clients?${params}`)
          .set(AUTH)
          .expect(200);
        checker.expectValid(res, '/api/data/clients');
        const expected = await reference(params);
        const limit = Number(params.get('limit') ?? 100);
        expect(res.body.meta).toMatchObject({
          total: expected.total,
          totalPages: Math.ceil(expected.total / limit),
        });
        expect(res.body.data.map((c: { id: string }) => c.id)).toEqual(expected.ids);
      }),
      fuzz,
    );
  });

  it('Gets: any path id is a 200, 404 or 400 problem; never a 5xx', async () => {
    const id = fc.oneof(
      fc.string({ minLength: 1, maxLength: 300 }).map(encodeURIComponent),
      fc.string({ unit: 'binary', minLength: 1, maxLength: 60 }).map(encodeURIComponent),
      fc.stringMatching(/^[A-Za-z0-9%._~' -]{1,40}$/).map((s) => s.replace(/ /g, '%20')),
    );
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('links', 'clients'), id, async (resource, encodedId) => {
        const res = await request(server()).get(`/api/data/${resource}/${encodedId}`).set(AUTH);
        expect([200, 400, 404]).toContain(res.status);
        if (res.status === 200) checker.expectValid(res, `/api/data/${resource}/{id}`);
        else expectProblem(res);
      }),
      fuzz,
    );
  });

  it('Authorization: any header value is a 200 or a 401 with a challenge; never a 5xx', async () => {
    const header = fc.oneof(
      fc.string({
        unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
        maxLength: 80,
      }),
      fc.string({ maxLength: 40 }).map((key) => `Bearer ${key.replace(/[^\x20-\x7e]/g, '')}`),
      fc.constantFrom(
        'Bearer test-key-primary',
        'bearer test-key-rotated',
        'Bearer  test-key-primary',
      ),
    );
    await fc.assert(
      fc.asyncProperty(header, async (authorization) => {
        const res = await request(server())
          .get('/api/data/links')
          .set('Authorization', authorization);
        expect([200, 401]).toContain(res.status);
        if (res.status === 401) {
          expectProblem(res);
          expect(res.headers['www-authenticate']).toMatch(/^Bearer realm="api"/);
        }
      }),
      fuzz,
    );
  });
});
