// Timestamps rendered by PostgreSQL: as the JSON shows them (UTC, milliseconds, exactly like
// Date#toISOString) and as cursors keep them (microseconds, PostgreSQL's own precision).
export const isoMillis = (column: string) =>
  `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
export const isoMicros = (column: string) =>
  `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;

// CONTRACT §2 order: createdAt, then id in byte order whatever the database locale. The list
// indexes are built on exactly these expressions.
export const LIST_ORDER = 'created_at, id COLLATE "C"';

/**
 * A row as compact JSON text, its fields named and ordered as given (`expr AS "name"`, …).
 * row_to_json writes no spaces, unlike json_build_object.
 */
export const jsonObject = (fields: string) =>
  `(SELECT row_to_json(f) FROM (SELECT ${fields}) AS f)::text`;
