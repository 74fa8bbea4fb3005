import { unverifiedDatabaseProblems } from './unverified-database';

describe('unverifiedDatabaseProblems (the production start)', () => {
  const refused = (variable: string) =>
    `${variable} reaches a database on another host without sslmode=verify-full: add it (docs/operations.md, TLS to PostgreSQL), or set DATABASE_ALLOW_UNVERIFIED=true to accept an unchecked connection`;

  it.each([
    'postgres://api:secret@db.example:5432/app',
    'postgres://api:secret@db.example/app?sslmode=require',
    'postgres://api:secret@10.0.0.7/app?sslmode=verify-ca&sslrootcert=/ca.pem',
    'postgres://api:secret@db.example/app?sslmode=disable',
    'postgres://u@/app?host=db.example',
  ])('refuses %s, naming the variable and never the value', (url) => {
    const problems = unverifiedDatabaseProblems({ DATABASE_URL: url });
    expect(problems).toEqual([refused('DATABASE_URL')]);
    expect(problems.join()).not.toContain('secret');
  });

  it('names each variable once', () => {
    const replicas = 'postgres://r1/app?sslmode=verify-full, postgres://r2/app, postgres://r3/app';
    expect(
      unverifiedDatabaseProblems({
        DATABASE_URL: 'postgres://db.example/app',
        DATABASE_REPLICA_URLS: replicas,
      }),
    ).toEqual([refused('DATABASE_URL'), refused('DATABASE_REPLICA_URLS')]);
  });

  it.each([
    'postgres://api:secret@db.example/app?sslmode=verify-full',
    'postgres://api@db.example/app?sslrootcert=/ca.pem&sslmode=verify-full',
    'postgres://postgres@127.0.0.1:5432/app',
    'postgresql://u@LOCALHOST/app',
    'postgres://u@[::1]:5432/app',
    'postgres://u@/app?host=/run/postgresql',
  ])('accepts %s', (url) => {
    expect(unverifiedDatabaseProblems({ DATABASE_URL: url })).toEqual([]);
  });

  it('accepts any database when DATABASE_ALLOW_UNVERIFIED=true', () => {
    const env = { DATABASE_URL: 'postgres://db.example/app', DATABASE_ALLOW_UNVERIFIED: 'true' };
    expect(unverifiedDatabaseProblems(env)).toEqual([]);
  });
});
