import { Registry } from 'prom-client';
import { SafePointLag } from '../../src/changes/safe-point-lag';
import { DataSource } from 'typeorm';
import {
  ChangesRepository,
  changesQuery,
  Feed,
  SAFE_POINT_QUERY,
} from '../../src/changes/changes.repository';
import { isoMicros } from '../../src/database/printed-timestamp';
import { genericPlanOf } from '../support/generic-plan';
import {
  createSuiteDatabase,
  databaseReader,
  dropSuiteDatabase,
  insertLinkScopedKey,
} from '../support/database';

const ROWS = 60_000;
const BATCH = 10_000;
const START = { timestamp: '-infinity', id: '' };

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Name'?: string;
  Filter?: string;
  'Actual Rows': number;
  'Actual Loops': number;
  'Shared Hit Blocks': number;
  'Shared Read Blocks': number;
  Plans?: PlanNode[];
}

const nodesOf = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodesOf)];

// The cost of a feed page (docs/performance.md): an index range scan from the cursor, reading
// about a page of rows at any depth, and a caught-up poll a few index pages.
describe('Change feed query plans on a large table', () => {
  let dataSource: DataSource;
  let safePoint: string;
  const deep: Record<Feed, { timestamp: string; id: string }> = {} as never;
  const last: Record<Feed, { timestamp: string; id: string }> = {} as never;

  beforeAll(async () => {
    dataSource = await createSuiteDatabase();
    await dataSource.query(`
      INSERT INTO links (id) SELECT 'link-' || i FROM generate_series(1, 200) AS i`);
    // Stamped by the trigger, one distinct time per row, as the feeding systems write.
    // In batches: each statement stays within the suite's statement timeout on a busy machine.
    // link-7 holds a sixth of the clients: a busy link, whose feed must not be read whole and
    // sorted (for a link of a few hundred rows the planner may rightly do just that).
    for (let first = 1; first <= ROWS; first += BATCH) {
      await dataSource.query(
        `INSERT INTO clients (id, link_id, status)
         SELECT 'client-' || i, 'link-' || CASE WHEN i % 6 = 0 THEN 7 ELSE 1 + i % 200 END, 'new'
         FROM generate_series($1::int, $1::int + $2::int - 1) AS i`,
        [first, BATCH],
      );
    }
    await dataSource.query('VACUUM ANALYZE clients, links');
    await new Promise((resolve) => setTimeout(resolve, 200));
    [{ safePoint }] = await dataSource.query(SAFE_POINT_QUERY);
    safePoint = isoMicros(safePoint);
    for (const feed of ['clients', 'links'] as Feed[]) {
      const position = (order: string, offset: number) =>
        dataSource.query(
          `SELECT ${`to_json(updated_at AT TIME ZONE 'UTC')::text`} AS t, id FROM ${feed}
           ORDER BY updated_at ${order}, id COLLATE "C" ${order} OFFSET $1 LIMIT 1`,
          [offset],
        );
      const [[d], [l]] = await Promise.all([position('DESC', 150), position('DESC', 0)]);
      deep[feed] = { timestamp: isoMicros(d.t), id: d.id };
      last[feed] = { timestamp: isoMicros(l.t), id: l.id };
    }
  }, 120_000);
  afterAll(() => dropSuiteDatabase(dataSource));

  async function explain(feed: Feed, after: typeof START, linkId?: string) {
    const { text, params } = changesQuery(feed, after, safePoint, 100, { linkId });
    const [row] = await dataSource.query(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${text}`, params);
    const plan = row['QUERY PLAN'][0];
    return { nodes: nodesOf(plan.Plan) };
  }

  it.each([
    ['clients', undefined],
    ['clients', 'link-7'],
    ['links', undefined],
  ] as const)(
    '%s feed (linkId %s): a changes index from the cursor, no sort beyond a page, a page of buffers at any depth',
    async (feed, linkId) => {
      for (const after of [START, deep[feed]]) {
        const { nodes } = await explain(feed, after, linkId);
        expect(nodes.map((node) => node['Node Type'])).not.toContain('Seq Scan');
        expect(nodes.some((node) => /_changes_idx$/.test(node['Index Name'] ?? ''))).toBe(true);
        // The last few rows of a link may be fetched and sorted; never more than a page.
        for (const sort of nodes.filter((node) => node['Node Type'] === 'Sort')) {
          expect(sort.Plans?.[0]['Actual Rows']).toBeLessThanOrEqual(101);
        }
        // 100 rows: a few index pages and the rows' heap pages, never a walk to the position.
        const scan = nodes.find((node) => node['Relation Name'] === feed) as PlanNode;
        expect(scan['Shared Hit Blocks'] + scan['Shared Read Blocks']).toBeLessThan(150);
      }
    },
  );

  // docs/api.md, "Scoped keys": the client feed of a key limited to links reads each link's
  // index from the position, a few rows each, then on only where the page may need more; never
  // a link whole (link-7 holds 10,000 rows).
  it('reads a scoped client feed page as a few rows a link and about a page', async () => {
    const LINKS = 20;
    const keyId = await insertLinkScopedKey(
      dataSource,
      'plans',
      Array.from({ length: LINKS }, (_, n) => `link-${n + 1}`),
    );
    for (const after of [START, deep.clients]) {
      const { text, params } = changesQuery(
        'clients',
        after,
        safePoint,
        100,
        {},
        { keyId, links: LINKS },
      );
      const [row] = await dataSource.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${text}`, params);
      const scans = nodesOf(row['QUERY PLAN'][0].Plan).filter(
        (node) => node['Relation Name'] === 'clients',
      );
      const read = scans.reduce((sum, n) => sum + n['Actual Rows'] * n['Actual Loops'], 0);
      // Up to twice a page in first rows (a page's share per link, rounded up), then a page.
      expect(read).toBeLessThanOrEqual(3 * 101 + LINKS);
    }
  });

  // Both are prepared once per connection and executed from then on (queries one at a time
  // reuse the pool's last connection). The safe point's, without parameters, keeps one plan;
  // whether a feed page is planned per execution is PostgreSQL's cost-based choice (on a
  // million rows it may plan an unfiltered page each time, sparing only the parse), so here
  // its executions are counted, not its plans.
  it('prepares the safe point and a feed page once, keeping the safe point’s plan', async () => {
    const reader = databaseReader(dataSource);
    const changes = new ChangesRepository(reader, new SafePointLag(new Registry()));
    for (let n = 0; n < 8; n++) await changes.page('clients', deep.clients, 100, {});
    const statements = await reader.query<
      { statement: string; generic_plans: string; custom_plans: string }[]
    >(
      'SELECT statement, generic_plans, custom_plans FROM pg_prepared_statements ORDER BY prepare_time',
      [],
      {
        primary: true,
      },
    );
    expect(statements.map(({ statement }) => statement)).toEqual([
      SAFE_POINT_QUERY,
      changesQuery('clients', START, safePoint, 100).text,
    ]);
    const executions = statements.map((s) => Number(s.generic_plans) + Number(s.custom_plans));
    expect(executions).toEqual([8, 8]);
    expect(statements[0].generic_plans).toBe('8');
  });

  // A plan PostgreSQL keeps for a feed page is made for any position: it must still be the
  // range scan of a changes index in feed order, stopped after a page.
  it.each([
    ['clients', undefined],
    ['clients', 'link-7'],
    ['links', undefined],
  ] as const)(
    '%s feed (linkId %s): its plan for any position reads the index in order',
    async (feed, linkId) => {
      const nodes = nodesOf(
        await genericPlanOf<PlanNode>(
          dataSource,
          changesQuery(feed, START, safePoint, 100, { linkId }),
        ),
      );
      expect(nodes.map((node) => node['Node Type'])).toEqual(['Limit', 'Index Scan']);
      expect(nodes[1]['Index Name']).toBe(
        linkId ? 'clients_link_changes_idx' : `${feed}_changes_idx`,
      );
      expect(nodes[1].Filter).toBeUndefined();
    },
  );

  // Its query runs inside oldest_writer_start(), whose plan PostgreSQL must keep per session:
  // a SQL function's query is planned at every call (ten times the rest of a poll), a PL/pgSQL
  // function's once per session.
  it('reads the safe point through a function whose plan is kept per session', async () => {
    const [fn] = await dataSource.query(
      `SELECT l.lanname AS language, p.provolatile AS volatility, p.prosecdef AS "isDefiner"
       FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang
       WHERE p.proname = 'oldest_writer_start'`,
    );
    expect(fn).toEqual({ language: 'plpgsql', volatility: 's', isDefiner: true });
  });

  it('answers a caught-up poll from a few index pages, reading no row', async () => {
    const { nodes } = await explain('clients', last.clients);
    const scan = nodes.find((node) => node['Relation Name'] === 'clients') as PlanNode;
    expect(scan['Index Name']).toBe('clients_changes_idx');
    expect(scan['Actual Rows']).toBe(0);
    expect(scan['Shared Hit Blocks'] + scan['Shared Read Blocks']).toBeLessThanOrEqual(5);
  });
});
