import { createHash } from 'node:crypto';
import { inspect } from 'node:util';
import { EnvironmentApiKeys } from './environment-keys';

describe('EnvironmentApiKeys', () => {
  const keys = new EnvironmentApiKeys(['first-key', 'second-key', 'ünï-key']);

  const idOf = (key: string) => `env-${createHash('sha256').update(key).digest('hex').slice(0, 8)}`;

  it.each(['first-key', 'second-key', 'ünï-key'])('names %s by the start of its digest', (key) => {
    expect(keys.idOf(key)).toBe(idOf(key));
  });

  it('keeps a key its id wherever API_KEYS lists it, as a rotation moves it', () => {
    expect(new EnvironmentApiKeys(['second-key']).idOf('second-key')).toBe(keys.idOf('second-key'));
    expect(new EnvironmentApiKeys(['second-key', 'first-key']).idOf('first-key')).toBe(
      idOf('first-key'),
    );
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
    expect(keys.idOf(key)).toBeUndefined();
  });

  it('accepts nothing when empty', () => {
    expect(new EnvironmentApiKeys([]).idOf('')).toBeUndefined();
  });
});

describe('EnvironmentApiKeys holding', () => {
  it('keeps the digests of the keys, never the keys', () => {
    const key = 'a-secret-key-of-api-keys';
    const held = inspect(new EnvironmentApiKeys([key]), { depth: null, showHidden: true });
    expect(held).not.toContain(key);
    expect(held).toContain(createHash('sha256').update(key).digest('hex'));
  });
});
