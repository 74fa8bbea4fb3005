/**
 * Express "query parser": form-encoded (`+` is a space, docs/api.md, Endpoints), no bracket syntax, no
 * key limit, every name kept verbatim (including `__proto__`) and repeats kept as arrays so
 * StrictQueryPipe can reject them. Malformed percent-escapes never throw.
 */
export function parseQuery(
  queryString: string | null | undefined,
): Record<string, string | string[]> {
  const query: Record<string, string | string[]> = Object.create(null);
  // Express passes null when the URL has no `?` (most gets by id): nothing to parse. (Node 24.21
  // would read `new URLSearchParams(null)` as the text "null", a parameter named "null".)
  if (!queryString) return query;
  for (const [name, value] of new URLSearchParams(queryString)) {
    const earlier = query[name];
    query[name] = earlier === undefined ? value : [earlier, value].flat();
  }
  return query;
}
