import { Injectable } from '@nestjs/common';
import { DatabaseReader } from '../database/database-reader';
import { columnOf, tableOf } from '../database/entity-columns';
import { afterPosition, LIST_ORDER, Position } from '../database/list-order';
import { printedTimestamp } from '../database/printed-timestamp';
import { isStorableText } from '../database/storable-text';
import { FilterSql, SqlParams } from '../query/filter-sql';
import { inKeyLinks, keyHoldsLink, LinkScope } from '../api-keys/link-scope';
import { keyLinksMerge } from '../api-keys/key-links-merge';
import { Client } from './client.entity';
import { ListClientsQuery } from './dto/list-clients.query';

/** A client as read for the API: timestamps as PostgreSQL prints them (printedTimestamp). */
export interface ClientRow {
  id: string;
  linkId: string;
  isDeleted: boolean;
  status: string;
  createdAt: string;
  updatedAt: string;
}

/** The filters of a List Clients request: its query's @Filter fields, each optional. */
export type ClientFilters = Omit<ListClientsQuery, 'page' | 'limit' | 'cursor' | 'after'>;

/** Where a page starts: after `offset` rows, or after a position in list order. */
export type PageStart = { offset: number } | { after: Position };

export interface SqlQuery {
  text: string;
  params: unknown[];
  /** Run as a named prepared statement (DatabaseReader): one plan suits any parameters. */
  prepared?: boolean;
}

const CLIENTS = tableOf(Client);
const column = (property: keyof Client & string) => columnOf(Client, property);
// The select list that prints a client as the API does (the change feed prints with it too).
export const CLIENT_COLUMNS = `c.${column('id')} AS "id", c.${column('linkId')} AS "linkId",
  c.${column('isDeleted')} AS "isDeleted", c.${column('status')} AS "status",
  ${printedTimestamp(`c.${column('createdAt')}`)} AS "createdAt",
  ${printedTimestamp(`c.${column('updatedAt')}`)} AS "updatedAt"`;
// The same columns as stored, unprinted: what an inner select hands to the printing one.
export const STORED_CLIENT_COLUMNS = (
  ['id', 'linkId', 'isDeleted', 'status', 'createdAt', 'updatedAt'] as const
)
  .map(column)
  .join(', ');

const FILTERS = new FilterSql(ListClientsQuery, Client);

/** The filters' conditions, and with a scope of links the key's (docs/api.md, "Scoped keys"). */
const filterConditions = (filters: ClientFilters, params: SqlParams, scope?: LinkScope) => [
  ...FILTERS.conditions(filters, params),
  // Qualified: inside the key's links, a bare link_id would be theirs.
  ...(scope
    ? [inKeyLinks(`${CLIENTS}.${column('linkId')}`, params.bind(scope.keyId, 'uuid'))]
    : []),
];
const selectsNone = (filters: ClientFilters) => FILTERS.selectsNone(filters);

const where = (conditions: string[]) =>
  conditions.length > 0 ? `WHERE ${conditions.join(' AND ')}` : '';

// Built once: a prepared statement is named by a lookup of its text.
const GET_TEXT = `SELECT ${CLIENT_COLUMNS} FROM ${CLIENTS} AS c WHERE c.${column('id')} = $1`;

const SCOPED_GET_TEXT = `${GET_TEXT} AND ${keyHoldsLink(`c.${column('linkId')}`, '$2::uuid')}`;

export function getQuery(id: string, scope?: LinkScope): SqlQuery {
  return scope
    ? { text: SCOPED_GET_TEXT, params: [id, scope.keyId] }
    : { text: GET_TEXT, params: [id] };
}

export function countQuery(filters: ClientFilters, scope?: LinkScope): SqlQuery {
  const params = new SqlParams();
  const conditions = where(filterConditions(filters, params, scope));
  const text = `SELECT count(*) AS total FROM ${CLIENTS} ${conditions}`;
  return { text, params: params.values };
}

/** The rows matching the filters, counted up to `bound`: it stops there, whatever the total. */
export function boundedCountQuery(
  filters: ClientFilters,
  bound: number,
  scope?: LinkScope,
): SqlQuery {
  const params = new SqlParams();
  const conditions = where(filterConditions(filters, params, scope));
  const text = `SELECT count(*) AS total FROM (SELECT FROM ${CLIENTS} ${conditions} LIMIT ${params.bind(bound, 'int')}) AS c`;
  return { text, params: params.values };
}

/**
 * Whether an ordering index's keys alone select the filtered rows: no filter, or one on
 * `linkId` or `status`. (`isDeleted=true` has an index of its own, but a partial one: a plan
 * made for any value of the parameter cannot use it.)
 */
function selectedByIndexKeys({ linkId, isDeleted, status }: ClientFilters): boolean {
  return isDeleted === undefined && (linkId === undefined || status === undefined);
}

/**
 * One page: `limit` rows after `offset` rows, or after a cursor position, plus one more row to
 * tell whether another page follows, from an index ordered like the list (docs/performance.md).
 * The indexes of the filtered lists (`linkId`, `status`, `isDeleted=true`) carry every printed
 * column: such a page, however deep, is one index-only scan that skips the offset and applies
 * the other filters on the columns the index carries. The whole list's index carries only the
 * filter columns: a page by number past the first, or any page on `isDeleted=false`, reads its
 * keys from it alone, then only the page's rows by primary key.
 *
 * A page that starts the walk (page 1, or a cursor's) and whose rows an index's keys select is
 * the same range scan whatever the parameters, so it is prepared: parsed once per connection
 * (which cost PostgreSQL more than running it), and planned once where PostgreSQL finds a plan
 * for any parameters no costlier. Any other page is planned for its own parameters.
 */
export function pageQuery(
  filters: ClientFilters,
  limit: number,
  from: PageStart,
  scope?: LinkScope,
): SqlQuery {
  // Over all of a key's links: each link's rows in order, merged (scopedPageQuery).
  if (scope && filters.linkId === undefined) return scopedPageQuery(filters, limit, from, scope);
  const params = new SqlParams();
  const conditions = filterConditions(filters, params, scope);
  if ('after' in from) {
    const createdAt = params.bind(from.after.timestamp, 'timestamptz');
    const id = params.bind(from.after.id, 'text');
    conditions.push(afterPosition(createdAt, id));
  }
  const skipsRows = 'offset' in from && from.offset > 0;
  const offset = skipsRows ? `OFFSET ${params.bind(from.offset, 'bigint')}` : '';
  const size = params.bind(limit, 'int');
  const { linkId, isDeleted, status } = filters;
  const wholeList = linkId === undefined && status === undefined && isDeleted !== true;
  const joinsBack = wholeList && (skipsRows || isDeleted === false);
  // Printed above the LIMIT: a scan prints every row it returns, the skipped ones included.
  const text = joinsBack
    ? `
    SELECT ${CLIENT_COLUMNS}
    FROM (
      SELECT id, created_at FROM ${CLIENTS} ${where(conditions)}
      ORDER BY ${LIST_ORDER} ${offset} LIMIT ${size} + 1
    ) AS k
    JOIN ${CLIENTS} AS c ON c.${column('id')} = k.id
    ORDER BY k.created_at, k.id COLLATE "C"`
    : `
    SELECT ${CLIENT_COLUMNS}
    FROM (
      SELECT ${STORED_CLIENT_COLUMNS} FROM ${CLIENTS} ${where(conditions)}
      ORDER BY ${LIST_ORDER} ${offset} LIMIT ${size} + 1
    ) AS c
    ORDER BY ${LIST_ORDER}`;
  return { text, params: params.values, prepared: !skipsRows && selectedByIndexKeys(filters) };
}

/**
 * A page over every link of a link-scoped key: the rows up to the page's end, merged from each
 * link's list index (`(link_id, created_at, id)`, carrying every printed column) by
 * keyLinksMerge, then the page of them in list order. It reads about twice the rows up to the
 * page's end and one index descent per link; never the table.
 */
export function scopedPageQuery(
  filters: ClientFilters,
  limit: number,
  from: PageStart,
  scope: LinkScope,
): SqlQuery {
  const params = new SqlParams();
  const conditions = FILTERS.conditions(filters, params);
  if ('after' in from) {
    const createdAt = params.bind(from.after.timestamp, 'timestamptz');
    const id = params.bind(from.after.id, 'text');
    conditions.push(afterPosition(createdAt, id));
  }
  const offset = 'offset' in from && from.offset > 0 ? from.offset : 0;
  const skip = offset > 0 ? `OFFSET ${params.bind(offset, 'bigint')}` : '';
  const rows = keyLinksMerge({
    scope,
    keyId: params.bind(scope.keyId, 'uuid'),
    table: CLIENTS,
    columns: STORED_CLIENT_COLUMNS,
    orderedBy: column('createdAt'),
    conditions,
    orderCovers: true,
    neededRows: offset + limit + 1,
    needed: params.bind(offset + limit + 1, 'bigint'),
  });
  const size = params.bind(limit, 'int');
  const text = `
    SELECT ${CLIENT_COLUMNS}
    FROM (
      SELECT * FROM (${rows}) AS c
      ORDER BY ${LIST_ORDER} ${skip} LIMIT ${size} + 1
    ) AS c
    ORDER BY ${LIST_ORDER}`;
  return { text, params: params.values, prepared: offset === 0 };
}

/**
 * The clients table: the only place its SQL is written. PostgreSQL text cannot hold NUL, so a
 * value with one matches no row and is never sent (docs/api.md, `GET /api/data/clients`).
 */
@Injectable()
export class ClientsRepository {
  constructor(private readonly database: DatabaseReader) {}

  async findById(id: string, scope?: LinkScope): Promise<ClientRow | undefined> {
    if (!isStorableText(id)) return undefined;
    const { text, params } = getQuery(id, scope);
    const [row] = await this.database.query<ClientRow[]>(text, params, { prepared: true });
    return row;
  }

  /** Up to `limit + 1` rows: the one past the page tells that another page follows. */
  page(
    filters: ClientFilters,
    limit: number,
    from: PageStart,
    scope?: LinkScope,
  ): Promise<ClientRow[]> {
    if (selectsNone(filters)) return Promise.resolve([]);
    const { text, params, prepared } = pageQuery(filters, limit, from, scope);
    return this.database.query<ClientRow[]>(text, params, { prepared });
  }

  async count(filters: ClientFilters, scope?: LinkScope): Promise<number> {
    if (selectsNone(filters)) return 0;
    const { text, params } = countQuery(filters, scope);
    const [row] = await this.database.query<{ total: string }[]>(text, params);
    return Number(row.total);
  }

  /** The total when at most `bound` rows match; otherwise `bound` + 1 (more). */
  async countUpTo(filters: ClientFilters, bound: number, scope?: LinkScope): Promise<number> {
    if (selectsNone(filters)) return 0;
    const { text, params } = boundedCountQuery(filters, bound + 1, scope);
    const [row] = await this.database.query<{ total: string }[]>(text, params);
    return Number(row.total);
  }
}
