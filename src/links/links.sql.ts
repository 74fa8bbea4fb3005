import { isoMicros, isoMillis, jsonObject, LIST_ORDER } from '../database/sql-json';

export interface LinkPosition {
  createdAt: string;
  id: string;
}

/** A batch of links as PostgreSQL renders it: comma-separated JSON objects, and where it ends. */
export interface LinksBatchRow {
  json: string | null;
  rows: number;
  lastCreatedAt: string | null;
  lastId: string | null;
}

// CONTRACT §1: exactly these fields, in this order.
const LINK_JSON = jsonObject(
  `id, ${isoMillis('created_at')} AS "createdAt", ${isoMillis('updated_at')} AS "updatedAt"`,
);

export function linkQuery(id: string) {
  return { text: `SELECT ${LINK_JSON} AS json FROM links WHERE id = $1`, params: [id] };
}

/** Up to `size` links in list order, after `after` when given. */
export function linksBatchQuery(size: number, after?: LinkPosition) {
  const params: unknown[] = [size];
  let where = '';
  if (after) {
    params.push(after.createdAt, after.id);
    where = `WHERE (created_at, id COLLATE "C") > ($2::timestamptz, $3::text COLLATE "C")`;
  }
  const text = `
    WITH batch AS (
      SELECT *, row_number() OVER (ORDER BY ${LIST_ORDER}) AS n
      FROM (SELECT id, created_at, updated_at FROM links ${where}
            ORDER BY ${LIST_ORDER} LIMIT $1::int) AS rows
    )
    SELECT string_agg(${LINK_JSON}, ',' ORDER BY n) AS "json",
           count(*)::int AS "rows",
           (array_agg(${isoMicros('created_at')} ORDER BY n DESC))[1] AS "lastCreatedAt",
           (array_agg(id ORDER BY n DESC))[1] AS "lastId"
    FROM batch`;
  return { text, params };
}
