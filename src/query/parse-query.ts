/** The names whose value had a malformed percent-escape, on a parsed query (not enumerable). */
export const MALFORMED_NAMES = Symbol('malformed percent-escapes');

export type ParsedQuery = Record<string, string | string[]> & { [MALFORMED_NAMES]?: string[] };

/**
 * Express "query parser": form-encoded (`+` is a space, docs/api.md, Endpoints), no bracket
 * syntax, no key limit, every name kept verbatim (including `__proto__`) and repeats kept as
 * arrays so StrictQueryPipe can reject them. A `%` that does not start an escape of UTF-8 text
 * (`%ZZ`, `%FF`, a cut sequence) never throws and is never read as U+FFFD: a name with one is
 * kept as sent, and a value with one is listed under MALFORMED_NAMES, for StrictQueryPipe to
 * name its parameter in a 400, as a path with one is a 400.
 */
export function parseQuery(queryString: string | null | undefined): ParsedQuery {
  const query: ParsedQuery = Object.create(null);
  // Express passes null when the URL has no `?` (most gets by id): nothing to parse.
  if (!queryString) return query;
  const malformed: string[] = [];
  for (const pair of queryString.split('&')) {
    if (pair === '') continue;
    const at = pair.indexOf('=');
    const rawName = at === -1 ? pair : pair.slice(0, at);
    const rawValue = at === -1 ? '' : pair.slice(at + 1);
    const name = formDecoded(rawName) ?? rawName;
    let value = formDecoded(rawValue);
    if (value === undefined) {
      malformed.push(name);
      value = rawValue;
    }
    const earlier = query[name];
    if (earlier === undefined) query[name] = value;
    else if (typeof earlier === 'string') query[name] = [earlier, value];
    // In place: a copy per repeat would make a query of repeats quadratic.
    else earlier.push(value);
  }
  if (malformed.length > 0) Object.defineProperty(query, MALFORMED_NAMES, { value: malformed });
  return query;
}

/** `+` as a space, then percent-escapes as UTF-8; undefined when they are not. */
function formDecoded(text: string): string | undefined {
  const spaced = text.includes('+') ? text.replaceAll('+', ' ') : text;
  return spaced.includes('%') ? percentDecoded(spaced) : spaced;
}

/** Percent-escapes decoded as UTF-8 text; undefined when they are not (a query or a path). */
export function percentDecoded(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}
