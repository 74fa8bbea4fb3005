/**
 * PostgreSQL text cannot hold NUL, and sending one fails the whole query. A value containing
 * NUL therefore matches no stored row (docs/api.md, Endpoints); callers skip the query instead.
 */
export function isStorableText(value: string): boolean {
  return !value.includes('\0');
}
