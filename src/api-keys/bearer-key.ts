import { Request } from 'express';

// docs/api.md, Authentication: the scheme word is case-insensitive and exactly one space precedes the key.
const BEARER_CREDENTIALS = /^bearer (.+)$/is;
const AUTHORIZATION = 'authorization';

/** The key in the Authorization header, or undefined when the header is not `Bearer <key>`. */
export function bearerKeyOf(request: Pick<Request, 'headers'>): string | undefined {
  return BEARER_CREDENTIALS.exec(request.headers.authorization ?? '')?.[1];
}

/**
 * Whether the request carries more than one Authorization field. Node keeps the first and drops
 * the others, so which key counted would depend on the order a proxy or client put them in.
 */
export function hasRepeatedAuthorization(request: Pick<Request, 'rawHeaders'>): boolean {
  let count = 0;
  const fields = request.rawHeaders;
  for (let i = 0; i < fields.length; i += 2) {
    const name = fields[i];
    if (name.length === AUTHORIZATION.length && name.toLowerCase() === AUTHORIZATION) count++;
  }
  return count > 1;
}
