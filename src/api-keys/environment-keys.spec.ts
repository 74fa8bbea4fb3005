import { ApiKeys } from './environment-keys';

describe('ApiKeys', () => {
  const keys = new ApiKeys(['first-key', 'second-key', 'ünï-key']);

  it.each(['first-key', 'second-key', 'ünï-key'])('accepts %s', (key) => {
    expect(keys.includes(key)).toBe(true);
  });

  it.each([
    '',
    'first',
    'first-key ',
    'FIRST-KEY',
    'first-keyx',
    'first-key,second-key',
    'uni-key',
  ])('rejects %j', (key) => {
    expect(keys.includes(key)).toBe(false);
  });

  it('accepts nothing when empty', () => {
    expect(new ApiKeys([]).includes('')).toBe(false);
  });
});

describe('ApiKeys comparison', () => {
  it('compares fixed-length digests against every key, whatever the candidate', () => {
    const crypto = jest.requireActual<typeof import('node:crypto')>('node:crypto');
    const spy = jest.spyOn(crypto, 'timingSafeEqual');
    const keys = new ApiKeys(['alpha-key', 'beta-key', 'gamma-key']);
    try {
      for (const candidate of ['alpha-key', 'gamma-key', 'alpha', 'a', 'x'.repeat(500), '']) {
        spy.mockClear();
        keys.includes(candidate);
        expect(spy).toHaveBeenCalledTimes(3);
        for (const [known, given] of spy.mock.calls) {
          expect((known as Buffer).length).toBe(32);
          expect((given as Buffer).length).toBe(32);
        }
      }
    } finally {
      spy.mockRestore();
    }
  });
});
