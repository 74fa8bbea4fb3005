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
