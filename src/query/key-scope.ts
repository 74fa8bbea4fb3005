/**
 * Where a request's query carries the scope of its key's links, for its cursor's check: the id
 * of a link-scoped key (docs/api.md, "Scoped keys"); absent for a key that sees everything.
 */
export const KEY_SCOPE = Symbol('key scope');

/**
 * Pins the request's query (Express parses it anew at each read) with its key's scope, so the
 * validation pipe checks a cursor against the filters and the key it came with.
 */
export function pinQueryWithKeyScope(request: { query: unknown }, keyScope: string): void {
  const query = request.query as Record<symbol, unknown>;
  query[KEY_SCOPE] = keyScope;
  Object.defineProperty(request, 'query', { value: query, configurable: true, writable: true });
}

/**
 * A page's scope bound to the key's links when it has a scope of links: a cursor (and a cached
 * total) of one key's slice never serves another's. Unscoped keys' scopes are as before.
 */
export const boundToKey = (scope: string, keyScope: string | undefined): string =>
  keyScope === undefined ? scope : `${scope}\0key:${keyScope}`;
