import { LIST_ORDER } from '../database/sql-json';

export interface LinkPosition {
  createdAt: string;
  id: string;
}

// Links are rendered in Node (link-json.ts) from the columns as PostgreSQL prints them:
// formatting timestamps in SQL costs the database more than the whole query otherwise.
const printed = (column: string) => `to_json(${column} AT TIME ZONE 'UTC')::text`;
const LINK_COLUMNS = `id, ${printed('created_at')} AS "createdAt", ${printed('updated_at')} AS "updatedAt"`;

export function linkQuery(id: string) {
  return { text: `SELECT ${LINK_COLUMNS} FROM links WHERE id = $1`, params: [id] };
}

/**
 * Up to `size` links in list order, after `after` (a UTC timestamp to the microsecond, and an
 * id) when given.
 */
export function linksBatchQuery(size: number, after?: LinkPosition) {
  const params: unknown[] = [size];
  let where = '';
  if (after) {
    params.push(after.createdAt, after.id);
    where = `WHERE (created_at, id COLLATE "C") > ($2::timestamp AT TIME ZONE 'UTC', $3::text COLLATE "C")`;
  }
  const text = `
    SELECT ${LINK_COLUMNS} FROM links ${where} ORDER BY ${LIST_ORDER} LIMIT $1::int`;
  return { text, params };
}
