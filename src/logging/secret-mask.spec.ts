import { secretMask } from './secret-mask';

const mask = secretMask(['env-key-0123456789abcdef']);

describe('secretMask', () => {
  it('masks a key however deep in a plain object, leaving the original intact', () => {
    const line = { path: '/x', inner: { header: 'Bearer abc', key: 'env-key-0123456789abcdef' } };
    expect(mask(line)).toEqual({
      path: '/x',
      inner: { header: 'Bearer [REDACTED]', key: '[REDACTED]' },
    });
    expect(line.inner.key).toBe('env-key-0123456789abcdef');
  });

  it('passes a line without secrets on as it is, not copied', () => {
    const line = { method: 'GET', route: '/api/data/clients/:id', status: 200, key: 'env-1' };
    expect(mask(line)).toBe(line);
  });

  it('masks every kind of secret in any letter case, and nothing else', () => {
    const managed = `LCAPI_${'a1B2'.repeat(12)}xyz`;
    expect(mask(`auth=BEARER t0k3n key=${managed}; ENV-KEY-0123456789ABCDEF.`)).toBe(
      'auth=BEARER [REDACTED] key=[REDACTED]; [REDACTED].',
    );
    expect(mask('the bearer, an lcapi_ prefix, env-key-0')).toBe(
      'the bearer, an lcapi_ prefix, env-key-0',
    );
  });
});
