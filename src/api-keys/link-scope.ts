import { ApiCaller } from './api-key-verifier';

/**
 * The key whose links limit a request's rows (docs/api.md, "Scoped keys"): each query reads
 * them from api_key_links, so a change of the key's links applies to its next request.
 */
export interface LinkScope {
  keyId: string;
  /** About how many links it holds (as of the key cache): how a page is shared between them. */
  links: number;
}

export const linkScopeOf = ({
  keyId,
  isLinkScoped,
  linkCount,
}: ApiCaller): LinkScope | undefined =>
  isLinkScoped ? { keyId, links: linkCount ?? 0 } : undefined;

/** SQL: the key's entry for a row's link, if the key holds it. */
const keyLinkOf = (linkColumn: string, keyId: string) =>
  `SELECT FROM api_key_links AS s WHERE s.key_id = ${keyId} AND s.link_id = ${linkColumn}`;

/**
 * SQL: the row's link (`linkColumn`, qualified by its table: a bare `link_id` would name the
 * key's own) is one of the key's (`keyId`, a bound parameter).
 */
export const inKeyLinks = (linkColumn: string, keyId: string) =>
  `EXISTS (${keyLinkOf(linkColumn, keyId)})`;

/**
 * inKeyLinks for one row whose id does not name its link (Get Client). `OFFSET 0` keeps it a
 * check of that link (an index probe, or a scan that stops at it) where PostgreSQL would
 * otherwise join the key's links to the row, hashing all of them when their table is small.
 */
export const keyHoldsLink = (linkColumn: string, keyId: string) =>
  `EXISTS (${keyLinkOf(linkColumn, keyId)} OFFSET 0)`;

/** SQL: the key's links, one row `s.link_id` each. */
export const keyLinks = (keyId: string) =>
  `(SELECT link_id FROM api_key_links WHERE key_id = ${keyId}) AS s`;
