import { accessSync, constants } from 'node:fs';

const MODES = ['disable', 'require', 'verify-ca', 'verify-full'];

/** Why pg cannot use a URL's TLS settings (its sslmode, the files it names), if it cannot. */
export function sslModeProblem(url: string): string | undefined {
  const params = queryParamsOf(url);
  // pg reads these files whenever they are named, with or without sslmode.
  for (const file of ['sslrootcert', 'sslcert', 'sslkey']) {
    const path = params.get(file);
    if (path === null) continue;
    try {
      accessSync(path, constants.R_OK);
    } catch {
      return `the ${file} file ${path} cannot be read`;
    }
  }
  const mode = params.get('sslmode');
  if (mode === null) return undefined;
  if (!MODES.includes(mode)) return `sslmode must be one of ${MODES.join(', ')}`;
  if (mode === 'verify-ca' && !params.has('sslrootcert'))
    return 'sslmode=verify-ca needs sslrootcert=<CA file>';
  return undefined;
}

// The query string alone: pg also takes URLs WHATWG refuses (`postgres://u@/db?host=/run/pg`).
export function queryParamsOf(url: string): URLSearchParams {
  return new URLSearchParams(
    url.includes('?') ? url.slice(url.indexOf('?') + 1).split('#')[0] : '',
  );
}
