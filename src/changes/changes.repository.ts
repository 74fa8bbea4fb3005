import { Injectable } from '@nestjs/common';
import { CLIENT_COLUMNS, ClientRow, STORED_CLIENT_COLUMNS } from '../clients/clients.repository';
import { LINK_COLUMNS, LinkRow } from '../links/links.repository';
import { DatabaseReader } from '../database/database-reader';
import { isoMicros, printedTimestamp } from '../database/printed-timestamp';
import { FilterSql, SqlParams } from '../query/filter-sql';
import { givenFilters } from '../query/filters';
import { Client } from '../clients/client.entity';
import { Link } from '../links/link.entity';
import { ClientChangesQuery, LinkChangesQuery } from './dto/changes.query';
import { inKeyLinks, keyLinks, LinkScope } from '../api-keys/link-scope';
import { keyLinksMerge } from '../api-keys/key-links-merge';
import { Position } from '../database/list-order';
import { CoalescedRead, CoalescedReads, ReadGate } from '../database/coalesced-read';
import { SafePointLag } from './safe-point-lag';

export type Feed = 'links' | 'clients';

/**
 * The links whose rows changed, each with the latest stamp among its rows (printed micros); or
 * every link, when they were not read one by one.
 */
export type ChangedLinks = ReadonlyMap<string, string> | 'all';

/** How far the feeds may serve, and why: see docs/api.md "Change feeds" and "No gaps". */
export const SAFE_POINT_MARGIN_MS = 100;
const SAFE_POINT_MARGIN = `interval '${SAFE_POINT_MARGIN_MS} milliseconds'`;

/**
 * The safe point: no transaction still in flight has stamped, or can stamp, a row before it.
 * A writer of links or clients holds a transaction id (the trigger sees to that) and ROW
 * EXCLUSIVE on the table before it stamps anything, and every stamp of a transaction is at or
 * after its xact_start; any other transaction (a backup, a report, a writer before its first
 * write) stamps later than now(), if ever. oldest_writer_start() (migrations) gives the oldest
 * such writer's start in this database, or
 * -infinity while one's start is unknown, which holds the feed where it is: it may be late,
 * never skip. Other databases' transactions cannot write these tables. Run on the primary, as
 * its own statement before the page's, so the page's snapshot is taken after every
 * transaction finished here has committed. A primary connection is never a standby's
 * (DatabasePools): while the primary's address reaches one (a failover behind a name), the
 * feeds answer 503.
 */
export const SAFE_POINT_QUERY = `
  SELECT ${printedTimestamp('p.at')} AS "safePoint",
         CASE WHEN isfinite(p.at) THEN extract(epoch FROM now() - p.at)::float8
              ELSE 'Infinity' END AS "lagSeconds"
  FROM (SELECT least(now(), oldest_writer_start()) - ${SAFE_POINT_MARGIN} AS at) AS p`;

// The links columns are unqualified, which the alias `c` does not disturb.
const FEED_COLUMNS: Record<Feed, string> = { links: LINK_COLUMNS, clients: CLIENT_COLUMNS };

/** Each feed's filters, as declared on its query (@Filter). */
const FEED_QUERIES = { links: LinkChangesQuery, clients: ClientChangesQuery };
const FEED_FILTERS: Record<Feed, FilterSql<unknown>> = {
  links: new FilterSql(LinkChangesQuery, Link),
  clients: new FilterSql(ClientChangesQuery, Client),
};

/** A feed's filters: its query's @Filter fields, each optional (the client feed's `linkId`). */
export type FeedFilters = Pick<ClientChangesQuery, 'linkId'>;

const FEED_ORDER = 'c.updated_at, c.id COLLATE "C"';

/**
 * Up to `limit` + 1 rows after `after` and before `safePoint` that pass the filters (and, for a
 * link-scoped key, are of its links), in feed order (updated_at, then id byte order): an index
 * range scan from the position, whatever its depth. For a scoped key, the client feed merges the
 * range scans of its links (clients_link_changes_idx, keyLinksMerge), and the link
 * feed reads its links by primary key: what it costs grows with the key's links, not the table.
 */
export function changesQuery(
  feed: Feed,
  after: Position,
  safePoint: string,
  limit: number,
  filters: FeedFilters = {},
  scope?: LinkScope,
) {
  const params = new SqlParams();
  const timestamp = params.bind(after.timestamp, 'timestamptz');
  const id = params.bind(after.id, 'text');
  const conditions = [
    `(c.updated_at, c.id COLLATE "C") > (${timestamp}, ${id} COLLATE "C")`,
    `c.updated_at < ${params.bind(safePoint, 'timestamptz')}`,
    ...FEED_FILTERS[feed].conditions(filters, params, 'c'),
  ];
  const size = params.bind(limit, 'int');
  const key = scope && params.bind(scope.keyId, 'uuid');
  const page = (from: string, where: string[]) => `
    SELECT ${FEED_COLUMNS[feed]} FROM ${from} WHERE ${where.join(' AND ')}
    ORDER BY ${FEED_ORDER} LIMIT ${size} + 1`;
  let text: string;
  if (!key) text = page(`${feed} AS c`, conditions);
  else if (feed === 'links')
    text = page(`${keyLinks(key)} JOIN links AS c ON c.id = s.link_id`, conditions);
  else if (filters.linkId !== undefined) {
    text = page(`clients AS c`, [...conditions, inKeyLinks('c.link_id', key)]);
  } else {
    const rows = keyLinksMerge({
      scope,
      keyId: key,
      table: 'clients',
      columns: STORED_CLIENT_COLUMNS,
      orderedBy: 'updated_at',
      conditions,
      orderCovers: false,
      neededRows: limit + 1,
      needed: `(${size} + 1)`,
    });
    text = `
    SELECT ${CLIENT_COLUMNS} FROM (
      SELECT * FROM (${rows}) AS c ORDER BY ${FEED_ORDER} LIMIT ${size} + 1
    ) AS c ORDER BY ${FEED_ORDER}`;
  }
  return { text, params: params.values };
}

interface SafePoint {
  safePoint: string;
}

/** The row each feed reads. */
export interface FeedRows {
  links: LinkRow;
  clients: ClientRow;
}

/** A page's rows, and the safe point it was read up to (printed micros). */
export interface FeedRead<F extends Feed> {
  rows: FeedRows[F][];
  safePoint: string;
}

/** The most rows of one feed the watcher reads in one go; past it, every link may have changed. */
export const MAX_TAIL_ROWS = 1000;

/**
 * The rows each feed stamped in [$1, $2), by link — a client's link, a link itself — and stamp,
 * up to $3 rows a feed: index range scans on the feeds' indexes. A row's position is
 * (updated_at, id) and ids are never empty, so a span of safe points covers whole positions.
 */
export const TAIL_QUERY = `
  (SELECT 'links' AS feed, id AS link, ${printedTimestamp('updated_at')} AS at FROM links
   WHERE updated_at >= $1::timestamptz AND updated_at < $2::timestamptz LIMIT $3::int)
  UNION ALL
  (SELECT 'clients', link_id, ${printedTimestamp('updated_at')} FROM clients
   WHERE updated_at >= $1::timestamptz AND updated_at < $2::timestamptz LIMIT $3::int)`;

/**
 * How a page is read: before a safe point already read (else one is read first), behind a
 * gate, limited to a link-scoped key's links.
 */
export interface PageOptions {
  safePoint?: string;
  gate?: ReadGate;
  scope?: LinkScope;
}

/**
 * The feeds' reads, all on the primary: the safe point, a page before it, the links changed
 * between two safe points. Reads asked at about the same time are shared (CoalescedRead: never
 * one that began before its caller asked), the safe point by every page, a page by the requests
 * for the same one: the polls one change wakes together cost one statement per position.
 */
@Injectable()
export class ChangesRepository {
  private readonly safePoints = new CoalescedRead(() => this.readSafePoint());
  private readonly pages = new CoalescedReads<FeedRead<Feed>>();

  constructor(
    private readonly database: DatabaseReader,
    private readonly lag: SafePointLag,
  ) {}

  /** Up to `limit` + 1 rows after `after` that pass `filters`, none at or past the safe point. */
  page<F extends Feed>(
    feed: F,
    after: Position,
    limit: number,
    filters: FeedFilters,
    { safePoint, gate, scope }: PageOptions = {},
  ): Promise<FeedRead<F>> {
    const given = givenFilters(FEED_QUERIES[feed], filters).map(({ name, value }) => [name, value]);
    const key = JSON.stringify([feed, after.timestamp, after.id, limit, given, safePoint, scope]);
    const read = () => this.readPage(feed, after, limit, filters, safePoint, scope);
    return this.pages.get(key, read, gate) as Promise<FeedRead<F>>;
  }

  /** The safe point now (docs/api.md "Change feeds"), as printed micros. */
  async safePoint(): Promise<string> {
    return isoMicros((await this.safePoints.get()).safePoint);
  }

  /** The links changed in each feed in [from, to): `all` past MAX_TAIL_ROWS rows. */
  async changedLinks(from: string, to: string): Promise<Record<Feed, ChangedLinks>> {
    // Named `text`, as the SQL-safety spec requires of any SQL that is not a literal.
    const text = TAIL_QUERY;
    const rows = await this.database.query<{ feed: Feed; link: string; at: string }[]>(
      text,
      [from, to, MAX_TAIL_ROWS + 1],
      { primary: true, prepared: true },
    );
    const changed = { links: new Map<string, string>(), clients: new Map<string, string>() };
    const counts = { links: 0, clients: 0 };
    for (const { feed, link, at } of rows) {
      const stamp = isoMicros(at);
      const latest = changed[feed].get(link);
      if (latest === undefined || stamp > latest) changed[feed].set(link, stamp);
      counts[feed]++;
    }
    return {
      links: counts.links > MAX_TAIL_ROWS ? 'all' : changed.links,
      clients: counts.clients > MAX_TAIL_ROWS ? 'all' : changed.clients,
    };
  }

  private async readPage<F extends Feed>(
    feed: F,
    after: Position,
    limit: number,
    filters: FeedFilters,
    readUpTo?: string,
    scope?: LinkScope,
  ): Promise<FeedRead<F>> {
    // A link id with NUL matches nothing, and PostgreSQL would reject the query.
    if (FEED_FILTERS[feed].selectsNone(filters)) {
      return { rows: [], safePoint: readUpTo ?? '-infinity' };
    }
    const safePoint = readUpTo ?? (await this.safePoint());
    const { text, params } = changesQuery(feed, after, safePoint, limit, filters, scope);
    // The same index range scan whatever the position: prepared (DatabaseReader).
    const rows = await this.database.query<FeedRows[F][]>(text, params, {
      primary: true,
      prepared: true,
    });
    return { rows, safePoint };
  }

  private async readSafePoint(): Promise<SafePoint> {
    // Named `text`, as the SQL-safety spec requires of any SQL that is not a literal.
    const text = SAFE_POINT_QUERY;
    const [row] = await this.database.query<{ safePoint: string; lagSeconds: number }[]>(text, [], {
      primary: true,
      prepared: true,
    });
    this.lag.observe(row.lagSeconds);
    return row;
  }
}
