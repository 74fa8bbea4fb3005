import { isoMicros, json, jsonObject, jsonTimestamp, LIST_ORDER } from '../database/sql-json';

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
const LINK_JSON = jsonObject({
  id: json('id'),
  createdAt: jsonTimestamp('created_at'),
  updatedAt: jsonTimestamp('updated_at'),
});

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
  // The batch's last row, for the next batch's start, is read from the ordering index alone
  // (and formatted once, not for every row the OFFSET skips).
  const batch = `FROM links ${where} ORDER BY ${LIST_ORDER}`;
  const text = `
    SELECT b.json, b.rows, ${isoMicros('last.created_at')} AS "lastCreatedAt", last.id AS "lastId"
    FROM (
      SELECT string_agg(${LINK_JSON}, ',' ORDER BY ${LIST_ORDER}) AS "json", count(*)::int AS "rows"
      FROM (SELECT id, created_at, updated_at ${batch} LIMIT $1::int) AS rows
    ) AS b
    LEFT JOIN LATERAL (
      SELECT created_at, id ${batch} OFFSET $1::int - 1 LIMIT 1
    ) AS last ON true`;
  return { text, params };
}
