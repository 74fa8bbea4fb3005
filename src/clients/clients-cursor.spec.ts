import * as crypto from 'node:crypto';
import { ClientsCursorCodec } from './clients-cursor';

// Lets a test watch the codec's comparisons while they still run for real.
jest.mock('node:crypto', () => {
  const actual = jest.requireActual<typeof crypto>('node:crypto');
  return { ...actual, timingSafeEqual: jest.fn(actual.timingSafeEqual) };
});

const codec = new ClientsCursorCodec(Buffer.from('test secret'));
const position = { createdAt: '2026-03-01T10:05:00.000001Z', id: "it's ✓ a/b.c" };
const FILTERS = '["link-1",null,"new"]';

describe('ClientsCursorCodec', () => {
  it('round-trips a position for the same filters', () => {
    const cursor = codec.encode(position, FILTERS);
    expect(cursor).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);
    expect(codec.decode(cursor, FILTERS)).toEqual(position);
  });

  it('is opaque: the id is not readable in plain text', () => {
    expect(codec.encode({ ...position, id: 'plain-id' }, FILTERS)).not.toContain('plain-id');
  });

  it('rejects a cursor used with other filters', () => {
    expect(codec.decode(codec.encode(position, FILTERS), '[null,null,null]')).toBe('other-filters');
  });

  it('rejects a cursor signed with another secret', () => {
    const foreign = new ClientsCursorCodec(Buffer.from('other secret')).encode(position, FILTERS);
    expect(codec.decode(foreign, FILTERS)).toBe('malformed');
  });

  it('rejects any tampering with the payload or the mac', () => {
    const cursor = codec.encode(position, FILTERS);
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
      expect(codec.decode(bad, FILTERS)).toBe('malformed');
    }
  });

  it('rejects a validly signed payload that is not a position', () => {
    const sign = (value: unknown) => {
      const payload = Buffer.from(JSON.stringify(value)).toString('base64url');
      const mac = (codec as unknown as { mac(p: string): string }).mac(payload);
      return `${payload}.${mac}`;
    };
    expect(codec.decode(sign(['yesterday', 'x', 'y']), FILTERS)).toBe('malformed');
    expect(codec.decode(sign(['2026-03-01T10:05:00.000001Z', 5, 'y']), FILTERS)).toBe('malformed');
    expect(codec.decode(sign({}), FILTERS)).toBe('malformed');
  });

  // A `!==` on the mac would tell an attacker, through response times, how many leading
  // characters of a forged mac are right; the comparison must take the same time throughout.
  it('compares the mac in constant time, valid or forged', () => {
    const compare = jest.mocked(crypto.timingSafeEqual);
    const cursor = codec.encode(position, FILTERS);
    const [payload, mac] = cursor.split('.');
    const forged = `${mac.slice(0, -1)}${mac.endsWith('A') ? 'B' : 'A'}`;
    for (const [given, answer] of [
      [mac, position],
      [forged, 'malformed'],
    ] as const) {
      compare.mockClear();
      expect(codec.decode(`${payload}.${given}`, FILTERS)).toEqual(answer);
      expect(compare).toHaveBeenCalledTimes(1);
      expect(compare.mock.calls[0].map((b) => Buffer.from(b as Uint8Array).toString())).toEqual([
        given,
        mac,
      ]);
    }
  });
});
