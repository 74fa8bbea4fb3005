import { createHmac, createSecretKey, hash, KeyObject, timingSafeEqual } from 'node:crypto';
import 'reflect-metadata';
import { Position } from '../database/list-order';
import { isStorableText } from '../database/storable-text';

export type CursorError = 'malformed' | 'other-scope';

/** The secrets of docs/operations.md "Cursor secret": new cursors use `current`; both verify. */
export interface CursorSecrets {
  current: string;
  previous?: string;
}

const MAC_LENGTH = 16;
const SCOPE_DIGEST_LENGTH = 8;
// What isoMicros prints: -infinity is also the start of a change feed, before any row.
const TIMESTAMP = /^(\d{4,})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)\.\d{6}Z( BC)?$/;
const INFINITE = new Set(['infinity', '-infinity']);

const parseJson = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};
/**
 * A timestamp PostgreSQL accepts: the form above, a real date and time (no 13th month, no year
 * 0: 1 BC precedes 1 AD), within its range, 4714-11-24 BC to 294276-12-31 (past JavaScript's).
 */
function isInstant(timestamp: string): boolean {
  if (INFINITE.has(timestamp)) return true;
  const parts = TIMESTAMP.exec(timestamp);
  if (!parts) return false;
  const [year, month, day, hours, minutes, seconds] = parts.slice(1, 7).map(Number);
  const isBc = parts[7] !== undefined;
  // Leap years counted on the proleptic Gregorian calendar, where 1 BC is year 0.
  const astronomical = isBc ? 1 - year : year;
  const isLeap = astronomical % 4 === 0 && (astronomical % 100 !== 0 || astronomical % 400 === 0);
  const daysInMonth = [31, isLeap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1];
  const inRange = isBc
    ? year < 4714 || (year === 4714 && (month > 11 || (month === 11 && day >= 24)))
    : year <= 294276;
  return (
    year > 0 &&
    inRange &&
    daysInMonth !== undefined &&
    day >= 1 &&
    day <= daysInMonth &&
    hours < 24 &&
    minutes < 60 &&
    seconds < 60
  );
}
const base64url = (data: Buffer | string) => Buffer.from(data).toString('base64url');
const digestOf = (scope: string) =>
  base64url(hash('sha256', scope, 'buffer').subarray(0, SCOPE_DIGEST_LENGTH));

/**
 * Opaque, tamper-evident cursors: `<payload>.<mac>`, where the payload holds the position and a
 * digest of its scope (the endpoint and filters it was issued for) and the mac is an
 * HMAC-SHA256 of the payload under CURSOR_SECRET. The mac is checked first, in constant time,
 * so a cursor this deployment did not issue is rejected before anything in it is read.
 */
export class CursorCodec {
  // Key objects made once: on Node 24 an HMAC given the secret as bytes cost 24 µs, against
  // 3.6 µs given a key object.
  private readonly keys: KeyObject[];

  constructor({ current, previous }: CursorSecrets) {
    this.keys = [current, previous]
      .filter((key) => key !== undefined)
      .map((key) => createSecretKey(Buffer.from(key)));
  }

  encode(position: Position, scope: string): string {
    const payload = base64url(JSON.stringify([position.timestamp, position.id, digestOf(scope)]));
    return `${payload}.${this.mac(this.keys[0], payload)}`;
  }

  /** The position, if this deployment signed the cursor for `scope` (or one of several). */
  decode(cursor: string, scope: string | readonly string[]): Position | CursorError {
    const [payload, mac, ...rest] = cursor.split('.');
    if (rest.length > 0 || !payload || !mac) return 'malformed';
    // Compared as text: base64 decoding ignores trailing bits, so two strings can decode alike.
    const given = Buffer.from(mac);
    const signed = this.keys.some((key) => {
      const expected = Buffer.from(this.mac(key, payload));
      return given.length === expected.length && timingSafeEqual(given, expected);
    });
    if (!signed) return 'malformed';
    // Signed yet not a position only under a leaked or misused secret; still a 400, never a 500.
    const fields = parseJson(Buffer.from(payload, 'base64url').toString());
    if (!Array.isArray(fields)) return 'malformed';
    const [timestamp, id, scopeDigest] = fields;
    if (typeof timestamp !== 'string' || !isInstant(timestamp)) return 'malformed';
    if (typeof id !== 'string' || !isStorableText(id)) return 'malformed';
    const issuedFor = [scope].flat().some((candidate) => scopeDigest === digestOf(candidate));
    return issuedFor ? { timestamp, id } : 'other-scope';
  }

  private mac(key: KeyObject, payload: string): string {
    return base64url(createHmac('sha256', key).update(payload).digest().subarray(0, MAC_LENGTH));
  }
}

const CURSOR_BINDING = Symbol('cursor binding');

/**
 * How a query DTO's cursor is bound: the scope of the request, the filters the scope reads, and
 * where its position goes.
 */
export interface CursorBinding {
  property: string;
  target: string;
  scope: (query: object) => string;
  filters: readonly string[];
}

/**
 * Marks a query DTO's cursor parameter as a signed cursor bound to `scope(query)`, which reads
 * `filters`. The validation pipe verifies it with the other parameters and puts the decoded
 * position in `target`, so one 400 names every bad parameter, the cursor included.
 */
export function SignedCursor<T extends object>(
  scope: (query: T) => string,
  target: keyof T & string,
  filters: readonly (keyof T & string)[] = [],
): PropertyDecorator {
  return (prototype, property) => {
    const binding: CursorBinding = {
      property: String(property),
      target,
      scope: scope as (query: object) => string,
      filters,
    };
    Reflect.defineMetadata(CURSOR_BINDING, binding, prototype.constructor);
  };
}

export const cursorBindingOf = (dto: object): CursorBinding | undefined =>
  Reflect.getMetadata(CURSOR_BINDING, dto) as CursorBinding | undefined;
