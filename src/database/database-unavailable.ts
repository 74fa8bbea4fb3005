export const DATABASE_UNAVAILABLE = 'The database is unavailable; retry later';

// SQLSTATE classes meaning "the database cannot serve us right now" rather than "the query is
// wrong": 08 connection exception, 53 insufficient resources, 57 operator intervention (which
// includes 57014, a query cancelled by statement_timeout); 40001, which a read meets only when a
// replica cancels it in a conflict with recovery: the same read later succeeds; and 25006, a
// standby where the primary should be (DatabasePools), as during a failover.
const UNAVAILABLE_SQLSTATE = /^(08|53|57|40001$|25006$)/;
const UNAVAILABLE_NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EPIPE',
]);
// node-postgres reports pool and socket timeouts with plain Errors and these messages; the last
// is a read that arrives while the app closes its pools.
const UNAVAILABLE_MESSAGE =
  /timeout exceeded when trying to connect|Connection terminated|Query read timeout|Client has encountered a connection error|Cannot use a pool after calling end/i;

/** True when an error (or anything it wraps) says the database is down, overloaded or too slow. */
// Duck-typed rather than `instanceof Error`: socket errors may come from another realm.
export function isDatabaseUnavailable(error: unknown, depth = 0): boolean {
  if (typeof error !== 'object' || error === null || depth > 3) return false;
  const { code, message, driverError, cause } = error as Record<string, unknown>;
  if (
    typeof code === 'string' &&
    (UNAVAILABLE_SQLSTATE.test(code) || UNAVAILABLE_NETWORK_CODES.has(code))
  ) {
    return true;
  }
  if (typeof message === 'string' && UNAVAILABLE_MESSAGE.test(message)) return true;
  return isDatabaseUnavailable(driverError, depth + 1) || isDatabaseUnavailable(cause, depth + 1);
}

// A SQLSTATE is five digits or capitals; errors without one come from the socket or the client.
const SQLSTATE = /^[0-9A-Z]{5}$/;
// 08 connection exception; 57P01-57P05: the server is shutting down or cannot take connections;
// 25006: a write refused by a standby, which a primary connection must not stay on.
const BROKEN_CONNECTION_SQLSTATE = /^(08|57P|25006$)/;

/**
 * True when a query's failure may have broken its connection, which the pool should then drop:
 * no SQLSTATE (a socket or client timeout) or a connection-class one. A statement the server
 * refused or cancelled (57014) leaves its connection usable.
 */
export function isConnectionFailure(error: unknown): boolean {
  if (error === undefined) return false;
  const code = (error as { code?: unknown }).code;
  return typeof code !== 'string' || !SQLSTATE.test(code) || BROKEN_CONNECTION_SQLSTATE.test(code);
}
