import { isIP } from 'node:net';
import { holdsEveryAddress } from './address-ranges';

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

// Trusted to say who the client is, every address could forge it: as if no proxy were named.
export const TRUST_PROXY_EVERYONE_MESSAGE =
  'TRUST_PROXY trusts every address (such as 0.0.0.0/0, ::/0 or ranges that add up to them), ' +
  'so any client could forge its address: name the proxies in front instead';

/** What is wrong with a parsed TRUST_PROXY, or undefined when it is fine. */
export function trustProxyProblem(value: unknown): string | undefined {
  if (value === false) return undefined;
  if (typeof value === 'number')
    return Number.isSafeInteger(value) && value <= MAX_TRUST_PROXY_HOPS
      ? undefined
      : TRUST_PROXY_MESSAGE;
  if (!Array.isArray(value) || value.length === 0 || !value.every(isProxyAddress))
    return TRUST_PROXY_MESSAGE;
  const addresses = value.filter((entry: string) => !RANGE_NAMES.has(entry));
  return holdsEveryAddress(addresses) ? TRUST_PROXY_EVERYONE_MESSAGE : undefined;
}

function isProxyAddress(entry: unknown): boolean {
  if (typeof entry !== 'string') return false;
  if (RANGE_NAMES.has(entry)) return true;
  const [address, prefix, ...rest] = entry.split('/');
  const version = isIP(address);
  if (version === 0 || rest.length > 0) return false;
  // Express's parser (proxy-addr) takes an IPv4 part in IPv6 only as ::ffff:a.b.c.d; any other
  // spelling (::1.2.3.4) would stop the boot with a stack trace instead of this message.
  if (version === 6 && address.includes('.') && !/^::ffff:[\d.]+$/i.test(address)) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (version === 4 ? 32 : 128);
}
