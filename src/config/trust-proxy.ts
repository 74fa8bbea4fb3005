import { isIP } from 'node:net';

export type TrustProxy = false | number | string[];

// Express's names for the private ranges (proxy-addr), allowed as entries beside addresses.
const RANGE_NAMES = new Set(['loopback', 'linklocal', 'uniquelocal']);

// More hops than any real chain of proxies: a large count trusts whatever the client sends.
export const MAX_TRUST_PROXY_HOPS = 10;

export const TRUST_PROXY_MESSAGE =
  `TRUST_PROXY must be a hop count from 0 to ${MAX_TRUST_PROXY_HOPS} (e.g. 1) or ` +
  'comma-separated proxy addresses or CIDRs (e.g. 10.0.0.0/8,192.168.1.10)';

/** `false`/unset: off; digits: how many proxies in front; otherwise the proxies' addresses. */
export function parseTrustProxy({ value }: { value: unknown }): unknown {
  if (value === undefined || value === 'false') return false;
  if (typeof value !== 'string') return value;
  if (/^\d+$/.test(value)) return Number(value);
  return value.split(',').map((entry) => entry.trim());
}

export function isTrustProxy(value: unknown): boolean {
  if (value === false) return true;
  if (typeof value === 'number')
    return Number.isSafeInteger(value) && value <= MAX_TRUST_PROXY_HOPS;
  return Array.isArray(value) && value.length > 0 && value.every(isProxyAddress);
}

function isProxyAddress(entry: unknown): boolean {
  if (typeof entry !== 'string') return false;
  if (RANGE_NAMES.has(entry)) return true;
  const [address, prefix, ...rest] = entry.split('/');
  const version = isIP(address);
  if (version === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (version === 4 ? 32 : 128);
}
