import { createHmac, createSecretKey, hash, KeyObject, timingSafeEqual } from 'node:crypto';
import 'reflect-metadata';
import { Position } from '../database/list-order';
import { isStorableText } from '../database/storable-text';
import { isPrintedInstant } from './instant';
import { remember } from './kept';

export type CursorError = 'malformed' | 'other-scope';

/** The secrets of docs/operations.md "Cursor secret": new cursors use `current`; both verify. */
export interface CursorSecrets {
  current: string;
  previous?: string;
}

const MAC_LENGTH = 16;
const SCOPE_DIGEST_LENGTH = 8;
const parseJson = (text: string): unknown => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};
const base64url = (data: Buffer | string) => Buffer.from(data).toString('base64url');
const digestOf = (scope: string) =>
  base64url(hash('sha256', scope, 'buffer').subarray(0, SCOPE_DIGEST_LENGTH));

/** What a verified cursor holds. */
interface CursorFields {
  timestamp: string;
  id: string;
  scopeDigest: unknown;
}

/**
 * Opaque, tamper-evident cursors: `<payload>.<mac>`, where the payload holds the position and a
 * digest of its scope (the endpoint and filters it was issued for) and the mac is an
 * HMAC-SHA256 of the payload under CURSOR_SECRET. The mac is checked first, in constant time,
 * so a cursor this deployment did not issue is rejected before anything in it is read.
 */
export class CursorCodec {
  // Key objects made once: an HMAC given the secret as bytes costs several times more.
  private readonly keys: KeyObject[];
  // Cursors verified and scopes digested lately (`remember`): a long poll sends again the cursor
  // it was answered, and the polls at one position send the same one; each would cost an HMAC, a
  // JSON parse and a SHA-256 per request.
  private readonly verified = new Map<string, CursorFields>();
  private readonly digests = new Map<string, string>();

  constructor({ current, previous }: CursorSecrets) {
    this.keys = [current, previous]
      .filter((key) => key !== undefined)
      .map((key) => createSecretKey(Buffer.from(key)));
  }

  encode(position: Position, scope: string): string {
    const payload = base64url(
      JSON.stringify([position.timestamp, position.id, this.digestOf(scope)]),
    );
    return `${payload}.${this.mac(this.keys[0], payload)}`;
  }

  /** The position, if this deployment signed the cursor for `scope` (or one of several). */
  decode(cursor: string, scope: string | readonly string[]): Position | CursorError {
    const fields = this.verified.get(cursor) ?? this.verify(cursor);
    if (fields === 'malformed') return fields;
    const { timestamp, id, scopeDigest } = fields;
    const issuedFor = [scope].flat().some((candidate) => scopeDigest === this.digestOf(candidate));
    return issuedFor ? { timestamp, id } : 'other-scope';
  }

  /** What the cursor holds, if this deployment signed it (then kept: a string is immutable). */
  private verify(cursor: string): CursorFields | 'malformed' {
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
    if (typeof timestamp !== 'string' || !isPrintedInstant(timestamp)) return 'malformed';
    if (typeof id !== 'string' || !isStorableText(id)) return 'malformed';
    return remember(this.verified, cursor, { timestamp, id, scopeDigest });
  }

  private digestOf(scope: string): string {
    return this.digests.get(scope) ?? remember(this.digests, scope, digestOf(scope));
  }

  private mac(key: KeyObject, payload: string): string {
    return base64url(createHmac('sha256', key).update(payload).digest().subarray(0, MAC_LENGTH));
  }
}

const CURSOR_BINDING = Symbol('cursor binding');

/**
 * How a query DTO's cursor is bound: the scope of the request, the filters the scope reads
 * besides the DTO's @Filter fields, where its position goes, and the scope cursors of an
 * earlier format had for the same request, if they still verify.
 */
export interface CursorBinding {
  property: string;
  target: string;
  scope: (query: object) => string;
  filters: readonly string[];
  earlierScope?: (query: object) => string | undefined;
}

/**
 * Marks a query DTO's cursor parameter as a signed cursor bound to `scope(query)`, which reads
 * the DTO's @Filter fields and `filters`. The validation pipe verifies it with the other
 * parameters and puts the decoded position in `target`, so one 400 names every bad parameter,
 * the cursor included.
 */
export function SignedCursor<T extends object>(
  scope: (query: T) => string,
  target: keyof T & string,
  filters: readonly (keyof T & string)[] = [],
  earlierScope?: (query: T) => string | undefined,
): PropertyDecorator {
  return (prototype, property) => {
    const binding: CursorBinding = {
      property: String(property),
      target,
      scope: scope as (query: object) => string,
      filters,
      earlierScope: earlierScope as CursorBinding['earlierScope'],
    };
    Reflect.defineMetadata(CURSOR_BINDING, binding, prototype.constructor);
  };
}

export const cursorBindingOf = (dto: object): CursorBinding | undefined =>
  Reflect.getMetadata(CURSOR_BINDING, dto) as CursorBinding | undefined;
