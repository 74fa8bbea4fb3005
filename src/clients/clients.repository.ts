import { printedTimestamp } from '../database/printed-timestamp';
import { afterPosition, LIST_ORDER, ListPosition } from '../database/list-order';

export interface ClientFilters {
  linkId?: string;
  isDeleted?: boolean;
  status?: string;
}

export interface SqlQuery {
  text: string;
  params: unknown[];
}

// Rendered as JSON by client-json.ts.
const CLIENT_COLUMNS = `c.id, c.link_id AS "linkId", c.is_deleted AS "isDeleted", c.status,
  ${printedTimestamp('c.created_at')} AS "createdAt", ${printedTimestamp('c.updated_at')} AS "updatedAt"`;

/** Collects bind parameters: every value reaches PostgreSQL as a parameter, never as SQL. */
class Params {
  readonly values: unknown[] = [];

  bind(value: unknown, type: string): string {
    this.values.push(value);
    return `$${this.values.length}::${type}`;
  }
}

function filterConditions({ linkId, isDeleted, status }: ClientFilters, params: Params): string[] {
  const conditions: string[] = [];
  if (linkId !== undefined) conditions.push(`link_id = ${params.bind(linkId, 'text')}`);
  if (isDeleted !== undefined) conditions.push(`is_deleted = ${params.bind(isDeleted, 'boolean')}`);
  if (status !== undefined) conditions.push(`status = ${params.bind(status, 'text')}`);
  return conditions;
}

const where = (conditions: string[]) =>
  conditions.length > 0 ? `WHERE ${conditions.join(' AND ')}` : '';

export function getQuery(id: string): SqlQuery {
  return {
    text: `SELECT ${CLIENT_COLUMNS} FROM clients AS c WHERE c.id = $1`,
    params: [id],
  };
}

export function countQuery(filters: ClientFilters): SqlQuery {
  const params = new Params();
  const text = `SELECT count(*) AS total FROM clients ${where(filterConditions(filters, params))}`;
  return { text, params: params.values };
}

/**
 * One page: `limit` rows after `offset` rows, or after a cursor position, plus one more row to
 * tell whether another page follows. The page's keys come from an ordering index alone (an
 * index-only scan, however deep the offset); only the page's own rows are then read.
 */
export function pageQuery(
  filters: ClientFilters,
  limit: number,
  from: { offset: number } | { after: ListPosition },
): SqlQuery {
  const params = new Params();
  const conditions = filterConditions(filters, params);
  if ('after' in from) {
    const createdAt = params.bind(from.after.createdAt, 'timestamptz');
    const id = params.bind(from.after.id, 'text');
    conditions.push(afterPosition(createdAt, id));
  }
  const offset = 'offset' in from ? params.bind(from.offset, 'bigint') : '0';
  const size = params.bind(limit, 'int');
  const text = `
    SELECT ${CLIENT_COLUMNS}
    FROM (
      SELECT id, created_at FROM clients ${where(conditions)}
      ORDER BY ${LIST_ORDER} OFFSET ${offset} LIMIT ${size} + 1
    ) AS k
    JOIN clients AS c ON c.id = k.id
    ORDER BY k.created_at, k.id COLLATE "C"`;
  return { text, params: params.values };
}
