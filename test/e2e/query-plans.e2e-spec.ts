import { DataSource } from 'typeorm';
import {
  ClientFilters,
  ClientsRepository,
  countQuery,
  getQuery,
  pageQuery,
  SqlQuery,
} from '../../src/clients/clients.repository';
import { filterCombinations, filterSamples } from '../support/client-filters';
import { genericPlanOf } from '../support/generic-plan';
import {
  bulkLoad,
  createSuiteDatabase,
  databaseReader,
  dropSuiteDatabase,
  insertLinkScopedKey,
} from '../support/database';

const ROWS = 120_000;

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  Filter?: string;
  Output?: string[];
  'Plan Rows': number;
  'Actual Rows'?: number;
  'Actual Loops'?: number;
  'Rows Removed by Filter'?: number;
  Plans?: PlanNode[];
}

const nodesOf = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodesOf)];

// docs/api.md, Endpoints, and docs/performance.md: every List Clients query reads an index in list
// order. A sequential scan of clients, or a sort of more rows than a page, fails the test.
describe('List Clients query plans on a large table', () => {
  let dataSource: DataSource;

  beforeAll(async () => {
    dataSource = await createSuiteDatabase();
    await dataSource.query(`
      INSERT INTO links (id, created_at, updated_at)
      SELECT 'link-' || i, now(), now() FROM generate_series(1, 200) AS i`);
    // Skewed like production: link-1 holds a sixth of the clients; 60 % connected, 35 % new.
    // Triggers off (the updated_at stamp, the link check).
    await bulkLoad(dataSource, async (manager) => {
      await manager.query('SET LOCAL session_replication_role = replica');
      await manager.query(
        `INSERT INTO clients (id, link_id, is_deleted, status, created_at, updated_at)
       SELECT 'client-' || i,
              'link-' || CASE WHEN i % 6 = 0 THEN 1 ELSE 1 + i % 200 END,
              i % 10 = 0,
              CASE WHEN i % 20 < 12 THEN 'connected' WHEN i % 20 < 19 THEN 'new' ELSE 'suspended' END,
              timestamptz '2024-01-01' + (i % 100000) * interval '10 minutes',
              now()
       FROM generate_series(1, $1) AS i`,
        [ROWS],
      );
    });
    await dataSource.query('VACUUM ANALYZE clients');
  }, 120_000);
  afterAll(() => dropSuiteDatabase(dataSource));

  async function planOf({ text, params }: SqlQuery): Promise<PlanNode[]> {
    const [row] = await dataSource.query(`EXPLAIN (VERBOSE, FORMAT JSON) ${text}`, params);
    return nodesOf(row['QUERY PLAN'][0].Plan);
  }

  // docs/performance.md: a get by id and a page 1 or cursor's page whose rows an index's keys
  // select are prepared, and PostgreSQL keeps one plan for them where it is no costlier (here: a
  // get, a page on one link); any other page is sent unnamed and planned for its own parameters
  // at every execution (a plan kept for any parameters may read the whole table to join a page
  // of keys, and cannot use the partial index of isDeleted=true). Queries one at a time reuse the pool's
  // last connection.
  it('keeps the plans of a get by id and of a page straight from an index, not of others', async () => {
    const reader = databaseReader(dataSource);
    const clients = new ClientsRepository(reader);
    for (let n = 1; n <= 8; n++) {
      await clients.findById(`client-${n}`);
      await clients.page({ linkId: `link-${n}` }, LIMIT, { offset: 0 });
      await clients.page({ linkId: `link-${n}` }, LIMIT, { offset: LIMIT });
      await clients.page({ linkId: `link-${n}`, status: 'new' }, LIMIT, { offset: 0 });
      await clients.page({ isDeleted: true }, LIMIT, { offset: 0 });
    }
    const statements = await reader.query<{ statement: string; generic_plans: string }[]>(
      'SELECT statement, generic_plans FROM pg_prepared_statements ORDER BY prepare_time',
      [],
    );
    const kept = { generic_plans: expect.stringMatching(/^[1-9]/) };
    expect(statements).toEqual([
      { statement: getQuery('').text, ...kept },
      { statement: pageQuery({ linkId: '' }, LIMIT, { offset: 0 }).text, ...kept },
    ]);
  });

  const filterSets = filterCombinations(
    filterSamples(['link-1', 'link-7'], ['2025-06-01T00:00:00Z']),
  ) as ClientFilters[];
  const LIMIT = 100;
  const from = [
    ['page 1', { offset: 0 }],
    ['page 200', { offset: 199 * LIMIT }],
    [
      'a cursor deep in the list',
      { after: { timestamp: '2025-06-01T00:00:00.000000Z', id: 'client-5' } },
    ],
  ] as const;

  // The whole list: no filter, or isDeleted=false only.
  const onWholeList = ({ linkId, isDeleted, status }: ClientFilters) =>
    !linkId && !status && isDeleted !== true;
  const pages = filterSets.flatMap((filters) =>
    from.map(([name, start]) => [JSON.stringify(filters), name, filters, start] as const),
  );

  it.each(pages)('page query %s, %s: index scan, no large sort', async (_f, _p, filters, start) => {
    const nodes = await planOf(pageQuery(filters, LIMIT, start));
    const clientScans = nodes.filter((node) => node['Relation Name'] === 'clients');
    expect(clientScans.map((node) => node['Node Type'])).not.toContain('Seq Scan');
    expect(nodes.some((node) => node['Index Name']?.startsWith('clients_'))).toBe(true);
    for (const sort of nodes.filter((node) => node['Node Type'].endsWith('Sort'))) {
      expect(sort['Plan Rows']).toBeLessThanOrEqual(LIMIT + 1);
    }
  });

  // A filtered list's index carries every printed column: no row is read from the table.
  it.each(pages.filter(([, , filters]) => !onWholeList(filters)))(
    'page query %s, %s: one index-only scan',
    async (_filters, _position, filters, start) => {
      const nodes = await planOf(pageQuery(filters, LIMIT, start));
      const clientScans = nodes.filter((node) => node['Relation Name'] === 'clients');
      expect(clientScans.map((node) => node['Node Type'])).toEqual(['Index Only Scan']);
      expect(clientScans[0]['Index Name']).toMatch(/^clients_.*page_idx$/);
      // Rows are printed above the LIMIT: the scan would print the rows the offset skips too.
      expect(clientScans[0].Output?.join()).not.toContain('to_json');
    },
  );

  // The whole list's index carries only the filter columns: past the first page, or on
  // isDeleted=false, the keys come from it alone and only the page's rows by primary key.
  it.each(pages.filter(([, , filters]) => onWholeList(filters)))(
    'page query %s, %s: keys from the list index alone',
    async (_filters, position, filters, start) => {
      const nodes = await planOf(pageQuery(filters, LIMIT, start));
      const clientScans = nodes.filter((node) => node['Relation Name'] === 'clients');
      const straight = filters.isDeleted === undefined && position !== 'page 200';
      expect(clientScans.map((node) => [node['Node Type'], node['Index Name']])).toEqual(
        straight
          ? [['Index Scan', 'clients_list_idx']]
          : [
              ['Index Only Scan', 'clients_list_idx'],
              ['Index Scan', 'clients_pkey'],
            ],
      );
    },
  );

  // A plan PostgreSQL keeps for a prepared page is made for any parameters: it must still read
  // the page's index in list order and stop after a page, whatever the value it is run with.
  const preparedPages = filterSets.flatMap((filters) =>
    from
      .filter(([, start]) => pageQuery(filters, LIMIT, start).prepared)
      .map(([name, start]) => [JSON.stringify(filters), name, filters, start] as const),
  );
  it('prepares exactly the first and cursor pages whose rows the keys of an index select', () => {
    expect(preparedPages.map(([filters, name]) => `${filters}, ${name}`)).toEqual(
      [
        '{}',
        '{"status":"new"}',
        '{"status":"connected"}',
        '{"linkId":"link-1"}',
        '{"linkId":"link-7"}',
      ].flatMap((filters) => [`${filters}, page 1`, `${filters}, a cursor deep in the list`]),
    );
  });
  it.each(preparedPages)(
    'prepared page query %s, %s: its plan for any parameters reads the index in order',
    async (_filters, _position, filters, start) => {
      const nodes = nodesOf(
        await genericPlanOf<PlanNode>(dataSource, pageQuery(filters, LIMIT, start)),
      );
      expect(nodes.map((node) => node['Node Type'])).toEqual([
        'Subquery Scan',
        'Limit',
        onWholeList(filters) ? 'Index Scan' : 'Index Only Scan',
      ]);
      // The filter is the index's first key: a scan that checked it row by row instead could
      // walk far past a page for a rare value.
      const index = filters.linkId ? 'link_page' : filters.status ? 'status_page' : 'list';
      expect(nodes[2]['Index Name']).toBe(`clients_${index}_idx`);
      expect(nodes[2].Filter).toBeUndefined();
    },
  );

  // Counting most of the table is cheapest as a sequential scan, and the planner rightly picks
  // one (the count cache absorbs that cost); a count over a selective filter must not.
  const selective = filterSets.filter(
    (filters) => 'linkId' in filters || filters.isDeleted === true,
  );
  it.each(selective.map((filters) => [JSON.stringify(filters), filters] as const))(
    'count query %s: no sequential scan',
    async (_filters, filters) => {
      const nodes = await planOf(countQuery(filters));
      const clientScans = nodes.filter((node) => node['Relation Name'] === 'clients');
      expect(clientScans.map((node) => node['Node Type'])).not.toContain('Seq Scan');
    },
  );

  // docs/api.md, "Scoped keys": a key limited to links reads each of its links' own index from
  // the start, a few rows each, then on only where the page may need more: never the table.
  describe('for a key limited to 20 links', () => {
    const SCOPE_LINKS = 20;
    let scope: { keyId: string; links: number };
    beforeAll(async () => {
      const id = await insertLinkScopedKey(
        dataSource,
        'plans',
        Array.from({ length: SCOPE_LINKS }, (_, n) => `link-${n + 1}`),
      );
      await dataSource.query('ANALYZE api_key_links');
      scope = { keyId: id, links: SCOPE_LINKS };
    });

    const scopedPages = filterSets.flatMap((filters) =>
      from
        .filter(([name]) => name !== 'page 200')
        .map(([name, start]) => [JSON.stringify(filters), name, filters, start] as const),
    );
    it.each(scopedPages)(
      'page query %s, %s: per-link index scans, no sort past links x page',
      async (_f, _p, filters, start) => {
        const nodes = await planOf(pageQuery(filters, LIMIT, start, scope));
        const clientScans = nodes.filter((node) => node['Relation Name'] === 'clients');
        expect(clientScans.map((node) => node['Node Type'])).not.toContain('Seq Scan');
        for (const scan of clientScans) expect(scan['Index Name']).toMatch(/^clients_/);
        for (const sort of nodes.filter((node) => node['Node Type'].endsWith('Sort'))) {
          expect(sort['Plan Rows']).toBeLessThanOrEqual(SCOPE_LINKS * (LIMIT + 1));
        }
      },
    );

    // Measured, not planned: the index entries the page's scans returned (link-1 alone holds a
    // sixth of the table, every other link 500 rows).
    it.each(from.filter(([name]) => name !== 'page 200'))(
      '%s reads a few rows a link and about a page, not a page a link',
      async (_name, start) => {
        const { text, params } = pageQuery({}, LIMIT, start, scope);
        const [row] = await dataSource.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${text}`, params);
        const scans = nodesOf(row['QUERY PLAN'][0].Plan).filter(
          (node) => node['Relation Name'] === 'clients',
        );
        const read = scans.reduce((sum, n) => sum + n['Actual Rows']! * n['Actual Loops']!, 0);
        expect(read).toBeGreaterThanOrEqual(LIMIT + 1);
        // Up to twice a page in first rows (a page's share per link, rounded up), then a page.
        expect(read).toBeLessThanOrEqual(3 * (LIMIT + 1) + SCOPE_LINKS);
      },
    );

    // Get Client checks its one row's link and stops there: the key's other links are not read
    // (with a small table of them, a join would read and hash them all at every get). The key's
    // first link is link-1, which holds client-6.
    it("Get Client reads the key's links only up to its client's own", async () => {
      const { text, params } = getQuery('client-6', scope);
      const [row] = await dataSource.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${text}`, params);
      const nodes = nodesOf(row['QUERY PLAN'][0].Plan);
      const read = nodes
        .filter((node) => node['Relation Name'] === 'api_key_links')
        .reduce(
          (sum, n) =>
            sum + (n['Actual Rows']! + (n['Rows Removed by Filter'] ?? 0)) * n['Actual Loops']!,
          0,
        );
      expect(nodes[0]['Actual Rows']).toBe(1);
      expect(read).toBe(1);
    });

    it.each(filterSets.map((filters) => [JSON.stringify(filters), filters] as const))(
      'count query %s: no sequential scan of the clients',
      async (_filters, filters) => {
        const nodes = await planOf(countQuery(filters, scope));
        const clientScans = nodes.filter((node) => node['Relation Name'] === 'clients');
        expect(clientScans.map((node) => node['Node Type'])).not.toContain('Seq Scan');
      },
    );
  });
});
