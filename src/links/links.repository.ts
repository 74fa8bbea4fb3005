import { printedTimestamp } from '../database/printed-timestamp';
import { afterPosition, LIST_ORDER, ListPosition } from '../database/list-order';

// Rendered as JSON by link-json.ts.
const LINK_COLUMNS = `id, ${printedTimestamp('created_at')} AS "createdAt",
  ${printedTimestamp('updated_at')} AS "updatedAt"`;

export function linkQuery(id: string) {
  return { text: `SELECT ${LINK_COLUMNS} FROM links WHERE id = $1`, params: [id] };
}

/** Up to `size` links in list order, after `after` when given. */
export function linksBatchQuery(size: number, after?: ListPosition) {
  const params: unknown[] = [size];
  let where = '';
  if (after) {
    params.push(after.createdAt, after.id);
    where = `WHERE ${afterPosition('$2::timestamptz', '$3::text')}`;
  }
  const text = `
    SELECT ${LINK_COLUMNS} FROM links ${where} ORDER BY ${LIST_ORDER} LIMIT $1::int`;
  return { text, params };
}
