// List order (docs/api.md, Endpoints): createdAt, then id in byte order whatever the database locale. The list
// indexes are built on exactly these expressions.
export const LIST_ORDER = 'created_at, id COLLATE "C"';

/**
 * Where a walk continues: a row's timestamp (createdAt in list order, updatedAt in a change
 * feed's), to the microsecond, and its id. A cursor holds one.
 */
export interface Position {
  timestamp: string;
  id: string;
}

/** The rows after a position in list order, given its createdAt and id as SQL (parameters). */
export const afterPosition = (createdAt: string, id: string) =>
  `(${LIST_ORDER}) > (${createdAt}, ${id} COLLATE "C")`;
