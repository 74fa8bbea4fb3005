import { queryParamsOf, sslModeProblem } from '../config/database-tls';

/**
 * Gives a connection URL's `sslmode` libpq's meaning, which is what operators and managed
 * PostgreSQL providers document: `require` encrypts without checking the certificate (unless a
 * `sslrootcert` is given), `verify-ca` checks the chain, `verify-full` also the host name. pg 8
 * reads `require` and `verify-ca` as `verify-full` unless the URL asks for libpq's meaning.
 * `prefer` and `allow` are refused: pg cannot fall back to a plain connection as libpq does.
 */
export function withLibpqSslMode(url: string, variable: string): string {
  const problem = sslModeProblem(url);
  if (problem) throw new Error(`${variable}: ${problem}`);
  const params = queryParamsOf(url);
  if (!params.has('sslmode') || params.has('uselibpqcompat')) return url;
  return `${url}&uselibpqcompat=true`;
}

/**
 * A URL without `sslmode` connects unencrypted (where libpq would try TLS first): said once at
 * start for a database that is not on this host, whose passwords and rows would cross a network.
 */
export function unencryptedDatabaseWarning(
  urls: { variable: string; url: string }[],
  pgSslMode: string | undefined,
) {
  // node-postgres reads PGSSLMODE for a URL without sslmode (docs say to leave it unset).
  if (pgSslMode) return undefined;
  const remote = urls.filter(({ url }) => !queryParamsOf(url).has('sslmode') && !isLocal(url));
  if (remote.length === 0) return undefined;
  const names = [...new Set(remote.map(({ variable }) => variable))].join(' and ');
  return `${names} without sslmode: the connection is not encrypted; add sslmode=verify-full (docs/operations.md, TLS to PostgreSQL)`;
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
