import { ApiKeys } from './api-keys';

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
