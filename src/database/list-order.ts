// CONTRACT §2 order: createdAt, then id in byte order whatever the database locale. The list
// indexes are built on exactly these expressions.
export const LIST_ORDER = 'created_at, id COLLATE "C"';
