import * as crypto from 'node:crypto';
import { CursorCodec } from './signed-cursor';

// Lets a test watch the codec's comparisons while they still run for real.
jest.mock('node:crypto', () => {
  const actual = jest.requireActual<typeof crypto>('node:crypto');
  return {
    ...actual,
    createHmac: jest.fn(actual.createHmac),
    createSecretKey: jest.fn(actual.createSecretKey),
    timingSafeEqual: jest.fn(actual.timingSafeEqual),
  };
});

const codec = new CursorCodec({ current: 'test secret' });
const position = { timestamp: '2026-03-01T10:05:00.000001Z', id: "it's ✓ a/b.c" };
const SCOPE = 'clients\0["link-1",null,"new"]';

describe('CursorCodec', () => {
  it('round-trips a position for the same scope', () => {
    const cursor = codec.encode(position, SCOPE);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(codec.decode(cursor, SCOPE)).toEqual(position);
  });

  // Cursors outlive a deployment: a client walking a list keeps the one it was given.
  it('verifies a cursor issued by an earlier build, and issues the same', () => {
    const earlier =
      'WyIyMDI2LTAzLTAxVDEwOjA1OjAwLjAwMDAwMVoiLCJpdCdzIOKckyBhL2IuYyIsInNNdUY3YmdqaGc0Il0.IXiul07FNyrLnFC9-NUJbw';
    expect(codec.decode(earlier, SCOPE)).toEqual(position);
    expect(codec.encode(position, SCOPE)).toBe(earlier);
  });

  // On Node 24 an HMAC given the secret as bytes cost 24 µs per cursor, given a key object 3.6.
  it('signs with key objects made once, not with the secret as bytes', () => {
    const sign = jest.mocked(crypto.createHmac);
    const makeKey = jest.mocked(crypto.createSecretKey);
    const fresh = new CursorCodec({ current: 'test secret' });
    sign.mockClear();
    makeKey.mockClear();
    fresh.decode(fresh.encode(position, SCOPE), SCOPE);
    expect(sign).toHaveBeenCalledTimes(2);
    for (const [, key] of sign.mock.calls) expect(key).toBeInstanceOf(crypto.KeyObject);
    expect(makeKey).not.toHaveBeenCalled();
  });

  it('verifies a cursor once: sent again, it costs no HMAC, and its scope is still checked', () => {
    const fresh = new CursorCodec({ current: 'test secret' });
    const cursor = fresh.encode(position, SCOPE);
    const sign = jest.mocked(crypto.createHmac);
    sign.mockClear();
    for (let i = 0; i < 3; i++) expect(fresh.decode(cursor, SCOPE)).toEqual(position);
    expect(sign).toHaveBeenCalledTimes(1);
    expect(fresh.decode(cursor, 'clients\0[]')).toBe('other-scope');
    const [payload, mac] = cursor.split('.');
    expect(
      fresh.decode(`${payload}.${mac.slice(0, -1)}${mac.endsWith('A') ? 'B' : 'A'}`, SCOPE),
    ).toBe('malformed');
  });

  it('keeps at most 1,024 verified cursors: the oldest is verified again', () => {
    const fresh = new CursorCodec({ current: 'test secret' });
    const cursors = Array.from({ length: 1025 }, (_, i) =>
      fresh.encode({ ...position, id: `id-${i}` }, SCOPE),
    );
    for (const cursor of cursors) fresh.decode(cursor, SCOPE);
    const sign = jest.mocked(crypto.createHmac);
    sign.mockClear();
    expect(fresh.decode(cursors[1024], SCOPE)).toEqual({ ...position, id: 'id-1024' });
    expect(sign).toHaveBeenCalledTimes(0);
    expect(fresh.decode(cursors[0], SCOPE)).toEqual({ ...position, id: 'id-0' });
    expect(sign).toHaveBeenCalledTimes(1);
  });

  it('round-trips the start of a feed', () => {
    const start = { timestamp: '-infinity', id: '' };
    expect(codec.decode(codec.encode(start, 'changes/links'), 'changes/links')).toEqual(start);
  });

  it('is opaque: the id is not readable in plain text', () => {
    expect(codec.encode({ ...position, id: 'plain-id' }, SCOPE)).not.toContain('plain-id');
  });

  it('rejects a cursor used with another scope', () => {
    expect(codec.decode(codec.encode(position, SCOPE), 'clients\0[]')).toBe('other-scope');
  });

  it('rejects a cursor signed with another secret', () => {
    const foreign = new CursorCodec({ current: 'other secret' }).encode(position, SCOPE);
    expect(codec.decode(foreign, SCOPE)).toBe('malformed');
  });

  it('accepts the previous secret during a rotation, and signs with the current one', () => {
    const old = new CursorCodec({ current: 'old secret' }).encode(position, SCOPE);
    const rotated = new CursorCodec({ current: 'new secret', previous: 'old secret' });
    expect(rotated.decode(old, SCOPE)).toEqual(position);
    const fresh = rotated.encode(position, SCOPE);
    expect(new CursorCodec({ current: 'new secret' }).decode(fresh, SCOPE)).toEqual(position);
    expect(new CursorCodec({ current: 'old secret' }).decode(fresh, SCOPE)).toBe('malformed');
  });

  it('rejects any tampering with the payload or the mac', () => {
    const cursor = codec.encode(position, SCOPE);
    const [payload, mac] = cursor.split('.');
    const forged = Buffer.from(JSON.stringify(['2026-01-01T00:00:00.000000Z', 'x', 'y'])).toString(
      'base64url',
    );
    for (const bad of [
      `${forged}.${mac}`,
      `${payload}.${mac.slice(0, -1)}${mac.endsWith('A') ? 'B' : 'A'}`,
      `${payload}.${mac.slice(0, -1)}${mac.endsWith('B') ? 'C' : 'B'}`,
      `${payload.slice(1)}.${mac}`,
      `${payload}.${mac}.x`,
      `${payload}`,
      `.${mac}`,
      '',
      'not a cursor',
      '%%%.###',
    ]) {
      expect(codec.decode(bad, SCOPE)).toBe('malformed');
    }
  });

  it('rejects a validly signed payload that is not a position', () => {
    const signText = (text: string) => {
      const payload = Buffer.from(text).toString('base64url');
      const mac = crypto.createHmac('sha256', 'test secret').update(payload).digest();
      return `${payload}.${mac.subarray(0, 16).toString('base64url')}`;
    };
    const sign = (value: unknown) => signText(JSON.stringify(value));
    expect(codec.decode(sign(['yesterday', 'x', 'y']), SCOPE)).toBe('malformed');
    expect(codec.decode(sign(['2026-03-01T10:05:00.000001Z', 5, 'y']), SCOPE)).toBe('malformed');
    expect(codec.decode(sign({}), SCOPE)).toBe('malformed');
    expect(codec.decode(signText('[[[['), SCOPE)).toBe('malformed');
    // PostgreSQL text cannot hold NUL: such an id would fail the page's query.
    const scoped = JSON.parse(
      Buffer.from(codec.encode(position, SCOPE).split('.')[0], 'base64url').toString(),
    );
    expect(codec.decode(sign(['2026-03-01T10:05:00.000001Z', 'a\0b', scoped[2]]), SCOPE)).toBe(
      'malformed',
    );
    // Times PostgreSQL refuses: a 13th month, a 31st of February, a 24th hour, a year 0 (1 BC
    // precedes 1 AD), a day before its earliest, 4714-11-24 BC.
    for (const time of [
      '2026-13-01T00:00:00.000000Z',
      '2026-02-31T00:00:00.000000Z',
      '2026-03-01T24:00:00.000000Z',
      '0000-01-01T00:00:00.000000Z',
      '0000-01-01T00:00:00.000000Z BC',
      '4714-11-23T23:59:59.999999Z BC',
      '0002-02-29T00:00:00.000000Z BC',
      '2100-02-29T00:00:00.000000Z',
      '2026-00-10T00:00:00.000000Z',
      '2026-01-00T00:00:00.000000Z',
      '2026-01-01T23:60:00.000000Z',
      '2026-01-01T23:00:60.000000Z',
      '294277-01-01T00:00:00.000000Z',
      '4715-01-01T00:00:00.000000Z BC',
      'Infinity',
    ]) {
      expect(codec.decode(sign([time, 'x', scoped[2]]), SCOPE)).toBe('malformed');
    }
    // A leap day, a year before 100, dates before year 1 (5 BC was a leap year) and infinity
    // are real: rows can hold them, so cursors must.
    for (const time of [
      '2024-02-29T23:59:59.999999Z',
      '0050-01-01T00:00:00.000000Z',
      '0005-02-29T00:00:00.000000Z BC',
      '4714-11-24T00:00:00.000000Z BC',
      '2000-02-29T00:00:00.000000Z',
      '294276-12-31T23:59:59.999999Z',
      '280000-02-29T00:00:00.000000Z',
      'infinity',
      '-infinity',
    ]) {
      expect(codec.decode(sign([time, 'x', scoped[2]]), SCOPE)).toEqual({
        timestamp: time,
        id: 'x',
      });
    }
  });

  // A `!==` on the mac would tell an attacker, through response times, how many leading
  // characters of a forged mac are right; the comparison must take the same time throughout.
  it('compares the mac in constant time, valid or forged', () => {
    const compare = jest.mocked(crypto.timingSafeEqual);
    // A codec that has verified none: a cursor verified once is not compared again.
    const codec = new CursorCodec({ current: 'test secret' });
    const [payload, mac] = codec.encode(position, SCOPE).split('.');
    const forged = `${mac.slice(0, -1)}${mac.endsWith('A') ? 'B' : 'A'}`;
    for (const [given, answer] of [
      [mac, position],
      [forged, 'malformed'],
    ] as const) {
      compare.mockClear();
      expect(codec.decode(`${payload}.${given}`, SCOPE)).toEqual(answer);
      expect(compare).toHaveBeenCalledTimes(1);
      expect(compare.mock.calls[0].map((b) => Buffer.from(b as Uint8Array).toString())).toEqual([
        given,
        mac,
      ]);
    }
  });
});
