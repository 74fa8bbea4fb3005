import { queryParamsOf } from './database-tls';
import { splitList } from './env-decorators';

/**
 * Why the production start refuses the database URLs, if it does: a database on another host
 * reached without sslmode=verify-full, whose passwords and rows would cross a network unchecked
 * (or in clear), unless DATABASE_ALLOW_UNVERIFIED=true says that is meant. Named, never printed.
 */
export function unverifiedDatabaseProblems(env: Record<string, string | undefined>): string[] {
  if (env.DATABASE_ALLOW_UNVERIFIED === 'true') return [];
  const urls = [
    { variable: 'DATABASE_URL', url: env.DATABASE_URL ?? '' },
    ...splitList(env.DATABASE_REPLICA_URLS ?? '').map((url) => ({
      variable: 'DATABASE_REPLICA_URLS',
      url,
    })),
  ];
  const unverified = urls.filter(
    ({ url }) => url !== '' && !isLocal(url) && queryParamsOf(url).get('sslmode') !== 'verify-full',
  );
  return [...new Set(unverified.map(({ variable }) => variable))].map(
    (variable) =>
      `${variable} reaches a database on another host without sslmode=verify-full: add it (docs/operations.md, TLS to PostgreSQL), or set DATABASE_ALLOW_UNVERIFIED=true to accept an unchecked connection`,
  );
}

function isLocal(url: string): boolean {
  // A `host` parameter wins over the URL's host: a socket directory, or a name.
  const host =
    queryParamsOf(url).get('host') ??
    /^[a-z]+:\/\/(?:[^@/]*@)?(\[[^\]]*\]|[^:/?#]*)/i.exec(url)?.[1] ??
    '';
  return (
    host.startsWith('/') || ['', 'localhost', '127.0.0.1', '[::1]'].includes(host.toLowerCase())
  );
}
