import request from 'supertest';
import { exemptFromContract } from '../support/contract-hook';
import { AUTH, createTestApp, TestApp } from '../support/create-app';
import { insertClients, insertLinks } from '../support/fixtures';

// Rows other systems may write that no RFC 3339 timestamp fits (before year 1, infinity), and
// the longest id the schema allows made of characters JSON escapes six-fold: each must be a
// position a walk passes, whose cursor the service accepts back.
const LONGEST_ID = '\u0001'.repeat(255);
const LINKS = [
  { id: 'link-edge', createdAt: '2026-01-01T00:00:00Z', updatedAt: '2026-01-01T00:00:00Z' },
  { id: LONGEST_ID, createdAt: '2026-01-02T00:00:00Z', updatedAt: '2026-01-02T00:00:00Z' },
  { id: 'link-later', createdAt: '2026-01-03T00:00:00Z', updatedAt: '2026-01-03T00:00:00Z' },
];
const CLIENTS = [
  { id: 'bc', createdAt: '0044-03-15T12:00:00.123Z BC', updatedAt: '0044-03-15T12:00:00.123Z BC' },
  { id: 'bc-2', createdAt: '0001-12-31T23:59:59Z BC', updatedAt: '0001-12-31T23:59:59Z BC' },
  { id: LONGEST_ID, createdAt: '2026-01-01T00:00:00Z', updatedAt: '2026-01-01T00:00:00Z' },
  { id: 'ad', createdAt: '2026-01-02T00:00:00Z', updatedAt: '2026-01-02T00:00:00Z' },
  { id: 'never', createdAt: 'infinity', updatedAt: '2026-01-03T00:00:00Z' },
].map((client) => ({ ...client, linkId: 'link-edge', status: 'new' }));

describe('Positions at the edges: dates before year 1, infinity, the longest ids', () => {
  let t: TestApp;
  // The document's `date-time` (RFC 3339) has no form for a date before year 1 or infinity.
  const get = (url: string) =>
    exemptFromContract(request(t.app.getHttpServer()).get(url).set(AUTH));

  /** Every row from the first page on, one per page, following each nextCursor. */
  async function walk(path: string, isLast: (meta: Record<string, unknown>) => boolean) {
    const rows: { id: string; createdAt: string; updatedAt: string }[] = [];
    let url = `${path}${path.includes('?') ? '&' : '?'}limit=1`;
    for (let step = 0; step < 20; step++) {
      const { body } = await get(url).expect(200);
      rows.push(...body.data);
      if (isLast(body.meta)) return rows;
      url = `${path}${path.includes('?') ? '&' : '?'}limit=1&cursor=${encodeURIComponent(body.meta.nextCursor)}`;
    }
    throw new Error(`${path}: no end after 20 pages`);
  }

  beforeAll(async () => {
    t = await createTestApp();
    await insertLinks(t.dataSource, LINKS);
    await insertClients(t.dataSource, CLIENTS);
  });
  afterAll(() => t.close());

  it.each(['/api/data/clients', '/api/data/clients?linkId=link-edge'])(
    'walks %s past each of them',
    async (path) => {
      const rows = await walk(path, (meta) => meta.nextCursor === null);
      expect(rows.map((row) => [row.id, row.createdAt])).toEqual([
        ['bc', '0044-03-15T12:00:00.123Z BC'],
        ['bc-2', '0001-12-31T23:59:59.000Z BC'],
        [LONGEST_ID, '2026-01-01T00:00:00.000Z'],
        ['ad', '2026-01-02T00:00:00.000Z'],
        ['never', 'infinity'],
      ]);
    },
  );

  it('follows the client feed past them', async () => {
    const rows = await walk('/api/data/changes/clients', (meta) => meta.hasMore === false);
    expect(rows.map((row) => [row.id, row.updatedAt])).toEqual([
      ['bc', '0044-03-15T12:00:00.123Z BC'],
      ['bc-2', '0001-12-31T23:59:59.000Z BC'],
      [LONGEST_ID, '2026-01-01T00:00:00.000Z'],
      ['ad', '2026-01-02T00:00:00.000Z'],
      ['never', '2026-01-03T00:00:00.000Z'],
    ]);
  });

  it('follows the link feed past the longest link id', async () => {
    const rows = await walk('/api/data/changes/links', (meta) => meta.hasMore === false);
    expect(rows.map((row) => row.id)).toEqual(['link-edge', LONGEST_ID, 'link-later']);
  });

  // Last: it adds rows the walks above do not expect.
  it('holds back from the feed a row stamped in the future (infinity for ever), not from lists', async () => {
    const stamped = (id: string, updatedAt: string) => ({
      id,
      linkId: 'link-edge',
      status: 'new',
      createdAt: '2026-01-04T00:00:00Z',
      updatedAt,
    });
    await insertClients(t.dataSource, [
      stamped('future', '3000-01-01T00:00:00Z'),
      stamped('forever', 'infinity'),
    ]);
    const listed = await walk('/api/data/clients', (meta) => meta.nextCursor === null);
    expect(listed.map((row) => row.id)).toEqual(expect.arrayContaining(['future', 'forever']));
    const fed = await walk('/api/data/changes/clients', (meta) => meta.hasMore === false);
    expect(fed.map((row) => row.id)).toEqual(['bc', 'bc-2', LONGEST_ID, 'ad', 'never']);
  });
});
