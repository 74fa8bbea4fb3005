import { isoMillis, linkJson } from './link-json';

describe('link JSON', () => {
  it.each([
    ['"2026-01-02T03:04:05.123456"', '2026-01-02T03:04:05.123Z'],
    ['"2026-01-02T03:04:05.1239"', '2026-01-02T03:04:05.123Z'],
    ['"2026-01-02T03:04:05.12"', '2026-01-02T03:04:05.120Z'],
    ['"2026-01-02T03:04:05.000001"', '2026-01-02T03:04:05.000Z'],
    ['"2026-01-02T03:04:05"', '2026-01-02T03:04:05.000Z'],
    ['"0099-12-31T23:59:59.999"', '0099-12-31T23:59:59.999Z'],
  ])('prints %s as %s, like Date#toISOString', (printed, iso) => {
    expect(isoMillis(printed)).toBe(iso);
    expect(new Date(iso).toISOString()).toBe(iso);
  });

  it('passes on what has no RFC 3339 form', () => {
    expect(isoMillis('"infinity"')).toBe('infinity');
    expect(isoMillis('"10000-01-01T00:00:00"')).toBe('10000-01-01T00:00:00');
  });

  it('escapes the id as JSON', () => {
    const id = 'a"b\\c\u0001 é 🙂';
    const text = linkJson({
      id,
      createdAt: '"2026-01-02T03:04:05"',
      updatedAt: '"2026-01-02T03:04:06.5"',
    });
    expect(JSON.parse(text)).toEqual({
      id,
      createdAt: '2026-01-02T03:04:05.000Z',
      updatedAt: '2026-01-02T03:04:06.500Z',
    });
    expect(Object.keys(JSON.parse(text))).toEqual(['id', 'createdAt', 'updatedAt']);
  });
});
