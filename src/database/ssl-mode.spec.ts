import { withLibpqSslMode } from './ssl-mode';

describe('withLibpqSslMode', () => {
  const base = 'postgres://u:p@db.example:5432/app';

  it('leaves a URL without sslmode as it is', () => {
    expect(withLibpqSslMode(base, 'DATABASE_URL')).toBe(base);
  });

  it.each(['disable', 'require', 'verify-full'])('asks pg for libpq semantics of %s', (mode) => {
    expect(withLibpqSslMode(`${base}?sslmode=${mode}`, 'DATABASE_URL')).toBe(
      `${base}?sslmode=${mode}&uselibpqcompat=true`,
    );
  });

  it('reads the parameters of a URL with an empty host (a Unix socket in `host`)', () => {
    const socket = 'postgres://u@/db?host=/run/postgresql&sslmode=disable';
    expect(withLibpqSslMode(socket, 'DATABASE_URL')).toBe(`${socket}&uselibpqcompat=true`);
  });

  it.each([
    ['prefer', 'DATABASE_URL: sslmode must be one of disable, require, verify-ca, verify-full'],
    ['allow', 'DATABASE_URL: sslmode must be one of disable, require, verify-ca, verify-full'],
    ['no-verify', 'DATABASE_URL: sslmode must be one of disable, require, verify-ca, verify-full'],
    ['verify-ca', 'DATABASE_URL: sslmode=verify-ca needs sslrootcert=<CA file>'],
    [
      'verify-full&sslrootcert=/nonexistent/ca.crt',
      'DATABASE_URL: the sslrootcert file /nonexistent/ca.crt cannot be read',
    ],
  ])('refuses sslmode=%s with a clear message', (mode, message) => {
    expect(() => withLibpqSslMode(`${base}?sslmode=${mode}`, 'DATABASE_URL')).toThrow(message);
  });
});
