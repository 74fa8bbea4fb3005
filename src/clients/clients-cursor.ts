import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { ListPosition } from '../database/list-order';

export type CursorError = 'malformed' | 'other-filters';

const MAC_LENGTH = 16;
const FILTERS_DIGEST_LENGTH = 8;
const TIMESTAMP = /^\d{4,}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/;

const base64url = (data: Buffer | string) => Buffer.from(data).toString('base64url');
const digestOf = (filtersKey: string) =>
  base64url(createHash('sha256').update(filtersKey).digest().subarray(0, FILTERS_DIGEST_LENGTH));

/**
 * Opaque, tamper-evident cursors (docs/api.md, Endpoints): `<payload>.<mac>`, where the payload holds the
 * position and a digest of the filters it was issued for, and the mac is an HMAC-SHA256 of the
 * payload. Decoding checks the mac first, so a cursor the service did not issue is rejected.
 */
export class ClientsCursorCodec {
  constructor(private readonly secret: Buffer) {}

  encode(position: ListPosition, filtersKey: string): string {
    const payload = base64url(
      JSON.stringify([position.createdAt, position.id, digestOf(filtersKey)]),
    );
    return `${payload}.${this.mac(payload)}`;
  }

  decode(cursor: string, filtersKey: string): ListPosition | CursorError {
    const [payload, mac, ...rest] = cursor.split('.');
    if (rest.length > 0 || !payload || !mac) return 'malformed';
    // Compared as text: base64 decoding ignores trailing bits, so two strings can decode alike.
    const given = Buffer.from(mac);
    const expected = Buffer.from(this.mac(payload));
    if (given.length !== expected.length || !timingSafeEqual(given, expected)) return 'malformed';
    const fields: unknown = JSON.parse(Buffer.from(payload, 'base64url').toString());
    if (!Array.isArray(fields)) return 'malformed';
    const [createdAt, id, filtersDigest] = fields;
    if (typeof createdAt !== 'string' || !TIMESTAMP.test(createdAt) || typeof id !== 'string') {
      return 'malformed';
    }
    return filtersDigest === digestOf(filtersKey) ? { createdAt, id } : 'other-filters';
  }

  private mac(payload: string): string {
    return base64url(
      createHmac('sha256', this.secret).update(payload).digest().subarray(0, MAC_LENGTH),
    );
  }
}
