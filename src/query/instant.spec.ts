import { isPrintedInstant, isRfc3339Instant } from './instant';

describe('isRfc3339Instant', () => {
  it.each([
    '2026-01-31T12:00:00Z',
    '2026-01-31t12:00:00z',
    '2026-01-31T12:00:00.123456789+02:00',
    '2024-02-29T00:00:00-15:59',
    '0001-01-01T00:00:00Z',
    '9999-12-31T23:59:59.999Z',
  ])('accepts %s', (text) => expect(isRfc3339Instant(text)).toBe(true));

  // Each is either not RFC 3339 or an instant PostgreSQL refuses (which would be a 500).
  it.each([
    '2026-01-31',
    '2026-01-31T12:00:00',
    '2026-01-31 12:00:00Z',
    '2026-01-31T12:00Z',
    '2026-1-31T12:00:00Z',
    '2026-01-31T12:00:00.Z',
    '2026-01-31T12:00:00+16:00',
    '2026-01-31T12:00:00+02:60',
    '2026-01-31T12:00:00+0200',
    '2025-02-29T00:00:00Z',
    '2026-02-30T00:00:00Z',
    '2026-13-01T00:00:00Z',
    '0000-01-01T00:00:00Z',
    '2026-01-31T24:00:00Z',
    '2026-01-31T12:60:00Z',
    '2026-01-31T12:00:60Z',
    '+2026-01-31T12:00:00Z',
    'infinity',
    ' 2026-01-31T12:00:00Z',
  ])('refuses %j', (text) => expect(isRfc3339Instant(text)).toBe(false));
});

describe('isPrintedInstant', () => {
  it.each([
    '2026-01-31T12:00:00.000000Z',
    '12026-01-31T12:00:00.000000Z',
    '0005-02-29T00:00:00.000000Z BC',
    '4714-11-24T00:00:00.000000Z BC',
    'infinity',
    '-infinity',
  ])('accepts %s', (text) => expect(isPrintedInstant(text)).toBe(true));

  it.each([
    '2026-01-31T12:00:00Z',
    '2026-01-31T12:00:00.000000+00:00',
    '0000-01-01T00:00:00.000000Z BC',
    '4714-11-23T23:59:59.999999Z BC',
    '294277-01-01T00:00:00.000000Z',
  ])('refuses %j', (text) => expect(isPrintedInstant(text)).toBe(false));
});
