/** The names whose value (or the name itself) had a malformed percent-escape, on a parsed query. */
export const MALFORMED_NAMES = Symbol('malformed percent-escapes');

export type ParsedQuery = Record<string, string | string[]> & { [MALFORMED_NAMES]?: string[] };

/**
 * Express "query parser": form-encoded (`+` is a space, docs/api.md, Endpoints), no bracket syntax, no
 * key limit, every name kept verbatim (including `__proto__`) and repeats kept as arrays so
 * StrictQueryPipe can reject them. A `%` that does not start an escape of UTF-8 text (`%ZZ`,
 * `%FF`, a cut sequence) never throws: its parameter is listed under MALFORMED_NAMES, for
 * StrictQueryPipe to name it in a 400, as a path with one is a 400.
 */
export function parseQuery(queryString: string | null | undefined): ParsedQuery {
  const query: ParsedQuery = Object.create(null);
  // Express passes null when the URL has no `?` (most gets by id): nothing to parse. (Node 24.21
  // would read `new URLSearchParams(null)` as the text "null", a parameter named "null".)
  if (!queryString) return query;
  for (const [name, value] of new URLSearchParams(queryString)) {
    const earlier = query[name];
    query[name] = earlier === undefined ? value : [earlier, value].flat();
  }
  if (queryString.includes('%')) {
    const malformed = queryString
      .split('&')
      .filter((pair) => pair !== '' && !isWellFormed(pair))
      .map((pair) => new URLSearchParams(pair).keys().next().value as string);
    // Not enumerable: the query's own entries stay its parameters.
    if (malformed.length > 0) Object.defineProperty(query, MALFORMED_NAMES, { value: malformed });
  }
  return query;
}

function isWellFormed(encoded: string): boolean {
  try {
    decodeURIComponent(encoded);
    return true;
  } catch {
    return false;
  }
}
