import { parseDuration } from './duration';

describe('parseDuration', () => {
  it.each([
    ['30m', 30 * 60_000],
    ['12h', 12 * 3_600_000],
    ['90d', 90 * 86_400_000],
    ['2w', 14 * 86_400_000],
  ])('reads %s', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each(['', '90', 'd', '0d', '-1d', '1.5d', '90 d', '1y', '1000000d', '7dx', '7d7d'])(
    'rejects %j',
    (text) => {
      expect(() => parseDuration(text)).toThrow('Invalid duration');
    },
  );
});
