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
  // The query string alone: pg also takes URLs WHATWG refuses (`postgres://u@/db?host=/run/pg`).
  const query = url.includes('?') ? url.slice(url.indexOf('?') + 1).split('#')[0] : '';
  const params = new URLSearchParams(query);
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
