import { unencryptedDatabaseWarning, withLibpqSslMode } from './ssl-mode';

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

describe('unencryptedDatabaseWarning', () => {
  const on = (variable: string, url: string) => ({ variable, url });

  it('names each variable with a remote database reached without sslmode', () => {
    expect(
      unencryptedDatabaseWarning(
        [
          on('DATABASE_URL', 'postgres://api:secret@db.example:5432/app'),
          on('DATABASE_REPLICA_URLS', 'postgres://api:secret@10.0.0.7/app?application_name=x'),
        ],
        undefined,
      ),
    ).toBe(
      'DATABASE_URL and DATABASE_REPLICA_URLS without sslmode: the connection is not encrypted; add sslmode=verify-full (docs/operations.md, TLS to PostgreSQL)',
    );
  });

  it('says nothing for a chosen sslmode, this host or a Unix socket', () => {
    expect(
      unencryptedDatabaseWarning(
        [
          on('DATABASE_URL', 'postgres://api:secret@db.example/app?sslmode=disable'),
          on('DATABASE_URL', 'postgres://api:secret@db.example/app?sslmode=verify-full'),
          on('DATABASE_URL', 'postgres://postgres@127.0.0.1:5432/app'),
          on('DATABASE_URL', 'postgresql://u@LOCALHOST/app'),
          on('DATABASE_URL', 'postgres://u@[::1]:5432/app'),
          on('DATABASE_URL', 'postgres://u@/app?host=/run/postgresql'),
        ],
        undefined,
      ),
    ).toBeUndefined();
  });

  it('leaves it to PGSSLMODE when that is set', () => {
    const remote = [on('DATABASE_URL', 'postgres://u@db/x')];
    expect(unencryptedDatabaseWarning(remote, 'require')).toBeUndefined();
  });

  it('reads a host given as a parameter', () => {
    expect(
      unencryptedDatabaseWarning(
        [on('DATABASE_URL', 'postgres://u@/app?host=db.example')],
        undefined,
      ),
    ).toMatch(/^DATABASE_URL without sslmode/);
  });
});
