import { isIPv4 } from 'node:net';

interface Span {
  first: bigint;
  last: bigint;
}

const IPV6_BITS = 128n;
const LAST_IPV6 = (1n << IPV6_BITS) - 1n;
// IPv4 addresses as IPv6 sees them (::ffff:0.0.0.0/96): how Node names an IPv4 client of a
// dual-stack socket, and how proxy-addr matches either spelling.
const MAPPED: Span = { first: 0xffffn << 32n, last: (0xffffn << 32n) | 0xffffffffn };

const ipv4Value = (address: string): bigint =>
  address.split('.').reduce((value, part) => (value << 8n) | BigInt(Number(part)), 0n);

/** An IPv6 address (valid, as net.isIP says; a trailing IPv4 part allowed) as 128 bits. */
function ipv6Value(address: string): bigint {
  const [head, tail = ''] = address.split('%')[0].split('::');
  const groups = (part: string) => (part === '' ? [] : part.split(':'));
  const words = (parts: string[]) =>
    parts.flatMap((part) =>
      isIPv4(part)
        ? [ipv4Value(part) >> 16n, ipv4Value(part) & 0xffffn]
        : [BigInt(parseInt(part, 16))],
    );
  const before = words(groups(head));
  const after = words(groups(tail));
  const all = [...before, ...Array(8 - before.length - after.length).fill(0n), ...after];
  return all.reduce((value, word) => (value << 16n) | word, 0n);
}

/** A CIDR or an address (net.isIP-valid, prefix within its family) as a span of IPv6 space. */
function spanOf(entry: string): Span {
  const [address, prefix] = entry.split('/');
  const isV4 = isIPv4(address);
  const value = isV4 ? MAPPED.first | ipv4Value(address) : ipv6Value(address);
  const bits = prefix === undefined ? IPV6_BITS : BigInt(Number(prefix) + (isV4 ? 96 : 0));
  const hostBits = IPV6_BITS - bits;
  const first = (value >> hostBits) << hostBits;
  return { first, last: first | ((1n << hostBits) - 1n) };
}

/** Whether the spans together hold every address from `first` to `last`. */
function covers(spans: Span[], { first, last }: Span): boolean {
  let next = first;
  for (const span of [...spans].sort((a, b) => (a.first < b.first ? -1 : 1))) {
    if (span.first > next) break;
    if (span.last >= next) next = span.last + 1n;
    if (next > last) return true;
  }
  return false;
}

/**
 * Whether these addresses and CIDRs together hold every IPv4 address (in either spelling) or
 * every IPv6 one: `0.0.0.0/0`, `::/0`, `0.0.0.0/1,128.0.0.0/1`, `::ffff:0.0.0.0/96`, …
 */
export function holdsEveryAddress(entries: readonly string[]): boolean {
  const spans = entries.map(spanOf);
  const belowMapped = { first: 0n, last: MAPPED.first - 1n };
  const aboveMapped = { first: MAPPED.last + 1n, last: LAST_IPV6 };
  return covers(spans, MAPPED) || (covers(spans, belowMapped) && covers(spans, aboveMapped));
}
