import { isoMicros, isoMillis } from './printed-timestamp';

describe('printed timestamps', () => {
  it.each([
    ['"2026-01-02T03:04:05.123456"', '2026-01-02T03:04:05.123Z', '2026-01-02T03:04:05.123456Z'],
    ['"2026-01-02T03:04:05.1239"', '2026-01-02T03:04:05.123Z', '2026-01-02T03:04:05.123900Z'],
    ['"2026-01-02T03:04:05.12"', '2026-01-02T03:04:05.120Z', '2026-01-02T03:04:05.120000Z'],
    ['"2026-01-02T03:04:05.000001"', '2026-01-02T03:04:05.000Z', '2026-01-02T03:04:05.000001Z'],
    ['"2026-01-02T03:04:05"', '2026-01-02T03:04:05.000Z', '2026-01-02T03:04:05.000000Z'],
    ['"0099-12-31T23:59:59.999"', '0099-12-31T23:59:59.999Z', '0099-12-31T23:59:59.999000Z'],
    ['"10000-01-01T00:00:00.5"', '10000-01-01T00:00:00.500Z', '10000-01-01T00:00:00.500000Z'],
  ])('%s: %s, and %s at full precision', (printed, millis, micros) => {
    expect(isoMillis(printed)).toBe(millis);
    if (millis.length === 24) expect(new Date(millis).toISOString()).toBe(millis);
    expect(isoMicros(printed)).toBe(micros);
  });

  it('passes on infinity, and keeps the era of a date before year 1', () => {
    expect(isoMillis('"infinity"')).toBe('infinity');
    expect(isoMicros('"-infinity"')).toBe('-infinity');
    expect(isoMillis('"0001-01-01T00:00:00 BC"')).toBe('0001-01-01T00:00:00.000Z BC');
    expect(isoMicros('"0044-03-15T12:00:00.1234 BC"')).toBe('0044-03-15T12:00:00.123400Z BC');
    // As long as the full form of a date after year 1.
    expect(isoMillis('"0044-03-15T12:00:00.123 BC"')).toBe('0044-03-15T12:00:00.123Z BC');
    expect(isoMicros('"0044-03-15T12:00:00.123 BC"')).toBe('0044-03-15T12:00:00.123000Z BC');
  });
});
