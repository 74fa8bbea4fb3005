/** Entries kept per map: the oldest go first. */
export const KEPT = 1024;
/** Longer keys are not kept: a map holds at most KEPT × this many characters of keys. */
export const KEPT_LENGTH = 1024;

/**
 * `value`, kept in `map` under `key` unless the key is too long to keep, the map's oldest entry
 * dropped past KEPT: what the hot path computes again and again for the same input (a cursor
 * verified, a scope's digest, a query validated) is computed once per input lately seen.
 */
export function remember<V>(map: Map<string, V>, key: string, value: V): V {
  if (key.length > KEPT_LENGTH) return value;
  if (map.size >= KEPT) map.delete(map.keys().next().value as string);
  map.set(key, value);
  return value;
}
