import { DataSource } from 'typeorm';
import { ClientFilters, pageQuery, PageStart } from '../../src/clients/clients.repository';
import { changesQuery } from '../../src/changes/changes.repository';
import {
  bulkLoad,
  createSuiteDatabase,
  dropSuiteDatabase,
  insertLinkScopedKey,
} from '../support/database';

// A link-scoped key's pages merge its links' rows a few at a time (keyLinksMerge): each
// page must equal the one read the plain way, whatever the key's link count as last cached
// (the hint that sizes the first reads), on links of very different sizes, empty and unknown
// links, timestamps shared by many rows, and the infinite timestamps PostgreSQL accepts.
describe('A scoped page merged from its links', () => {
  let dataSource: DataSource;
  let keyId: string;
  const LINKS = 11;
  const FAR_FUTURE = '2100-01-01T00:00:00Z';

  beforeAll(async () => {
    dataSource = await createSuiteDatabase();
    await dataSource.query(
      `INSERT INTO links (id) SELECT 'link-' || i FROM generate_series(0, 11) i`,
    );
    // link-0 a dense one (300 rows), links 1-8 about 30 each, link-11 three, 9 and 10 none;
    // 40 distinct times each way, and a few infinite ones. Triggers off: the times are set.
    await bulkLoad(dataSource, async (manager) => {
      await manager.query('SET LOCAL session_replication_role = replica');
      await manager.query(`
        INSERT INTO clients (id, link_id, is_deleted, status, created_at, updated_at)
        SELECT 'c' || i,
               'link-' || CASE WHEN i <= 300 THEN 0 WHEN i <= 540 THEN 1 + i % 8 ELSE 11 END,
               false,
               CASE WHEN i % 3 = 0 THEN 'new' ELSE 'connected' END,
               CASE WHEN i % 97 = 0 THEN timestamptz 'infinity'
                    WHEN i % 89 = 0 THEN timestamptz '-infinity'
                    ELSE timestamptz '2025-01-01' + (i * 7919 % 40) * interval '1 hour' END,
               timestamptz '2025-06-01' + (i * 104729 % 40) * interval '1 minute'
        FROM generate_series(1, 543) AS i`);
    });
    await dataSource.query('ANALYZE clients');
    keyId = await insertLinkScopedKey(dataSource, 'merge', [
      ...Array.from({ length: 10 }, (_, n) => `link-${n}`),
      'link-11',
      'link-unknown',
    ]);
  }, 60_000);
  afterAll(() => dropSuiteDatabase(dataSource));

  const ids = (rows: { id: string }[]) => rows.map(({ id }) => id);
  const hints = [0, 1, LINKS, 500];
  const filterSets: ClientFilters[] = [{}, { status: 'new' }];

  /** The scope's rows the plain way: every row of the key's links, ordered, then cut. */
  function plainly(orderedBy: string, status: string | undefined, after: string[] | undefined) {
    const conditions = ['link_id IN (SELECT link_id FROM api_key_links WHERE key_id = $1)'];
    const params: unknown[] = [keyId];
    if (status) conditions.push(`status = $${params.push(status)}`);
    if (after) {
      params.push(...after);
      conditions.push(`(${orderedBy}, id COLLATE "C") > ($2::timestamptz, $3::text COLLATE "C")`);
    }
    return dataSource.query<{ id: string; at: string }[]>(
      `SELECT id, ${orderedBy}::text AS at FROM clients WHERE ${conditions.join(' AND ')}
       ORDER BY ${orderedBy}, id COLLATE "C"`,
      params,
    );
  }

  it('lists the same pages as the plain query, by number and by cursor', async () => {
    for (const filters of filterSets) {
      const all = await plainly('created_at', filters.status, undefined);
      expect(all.length).toBeGreaterThan(100);
      for (const limit of [1, 3, 10, 100]) {
        const starts: [PageStart, { id: string }[]][] = [0, 5, 40].map((offset) => [
          { offset },
          all.slice(offset, offset + limit + 1),
        ]);
        for (const n of [0, 17, all.length - 2]) {
          const { at, id } = all[n];
          starts.push([{ after: { timestamp: at, id } }, all.slice(n + 1, n + limit + 2)]);
        }
        for (const [start, expected] of starts) {
          for (const links of hints) {
            const { text, params } = pageQuery(filters, limit, start, { keyId, links });
            expect([
              filters,
              limit,
              start,
              links,
              ids(await dataSource.query(text, params)),
            ]).toEqual([filters, limit, start, links, ids(expected)]);
          }
        }
      }
    }
  });

  it('follows the same client feed as the plain query', async () => {
    const all = await plainly('updated_at', undefined, undefined);
    for (const limit of [1, 3, 10, 100]) {
      const positions = [{ timestamp: '-infinity', id: '' }];
      for (const n of [0, 17, 150]) positions.push({ timestamp: all[n].at, id: all[n].id });
      for (const after of positions) {
        const expected = await plainly('updated_at', undefined, [after.timestamp, after.id]);
        for (const links of hints) {
          const { text, params } = changesQuery(
            'clients',
            after,
            FAR_FUTURE,
            limit,
            {},
            {
              keyId,
              links,
            },
          );
          expect([limit, after, links, ids(await dataSource.query(text, params))]).toEqual([
            limit,
            after,
            links,
            ids(expected.slice(0, limit + 1)),
          ]);
        }
      }
    }
  });
});
