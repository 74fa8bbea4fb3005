import { accessSync, constants } from 'node:fs';

const MODES = ['disable', 'require', 'verify-ca', 'verify-full'];

/**
 * Gives a connection URL's `sslmode` libpq's meaning, which is what operators and managed
 * PostgreSQL providers document: `require` encrypts without checking the certificate (unless a
 * `sslrootcert` is given), `verify-ca` checks the chain, `verify-full` also the host name. pg 8
 * reads `require` and `verify-ca` as `verify-full` unless the URL asks for libpq's meaning.
 * `prefer` and `allow` are refused: pg cannot fall back to a plain connection as libpq does.
 */
export function withLibpqSslMode(url: string, variable: string): string {
  const params = paramsOf(url);
  const mode = params.get('sslmode');
  if (mode === null) return url;
  if (!MODES.includes(mode))
    throw new Error(`${variable}: sslmode must be one of ${MODES.join(', ')}`);
  if (mode === 'verify-ca' && !params.has('sslrootcert'))
    throw new Error(`${variable}: sslmode=verify-ca needs sslrootcert=<CA file>`);
  for (const file of ['sslrootcert', 'sslcert', 'sslkey']) {
    const path = params.get(file);
    if (path === null) continue;
    try {
      accessSync(path, constants.R_OK);
    } catch {
      throw new Error(`${variable}: the ${file} file ${path} cannot be read`);
    }
  }
  return params.has('uselibpqcompat') ? url : `${url}&uselibpqcompat=true`;
}

/**
 * A URL without `sslmode` connects unencrypted (where libpq would try TLS first): said once at
 * start for a database that is not on this host, whose passwords and rows would cross a network.
 */
export function unencryptedDatabaseWarning(urls: { variable: string; url: string }[]) {
  // node-postgres reads PGSSLMODE for a URL without sslmode (docs say to leave it unset).
  if (process.env.PGSSLMODE) return undefined;
  const remote = urls.filter(({ url }) => !paramsOf(url).has('sslmode') && !isLocal(url));
  if (remote.length === 0) return undefined;
  const names = [...new Set(remote.map(({ variable }) => variable))].join(' and ');
  return `${names} without sslmode: the connection is not encrypted; add sslmode=verify-full (docs/operations.md, TLS to PostgreSQL)`;
}

// The query string alone: pg also takes URLs WHATWG refuses (`postgres://u@/db?host=/run/pg`).
function paramsOf(url: string): URLSearchParams {
  return new URLSearchParams(
    url.includes('?') ? url.slice(url.indexOf('?') + 1).split('#')[0] : '',
  );
}

function isLocal(url: string): boolean {
  // A `host` parameter wins over the URL's host: a socket directory, or a name.
  const host =
    paramsOf(url).get('host') ??
    /^[a-z]+:\/\/(?:[^@/]*@)?(\[[^\]]*\]|[^:/?#]*)/i.exec(url)?.[1] ??
    '';
  return (
    host.startsWith('/') || ['', 'localhost', '127.0.0.1', '[::1]'].includes(host.toLowerCase())
  );
}
