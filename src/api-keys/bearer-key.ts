import { Request } from 'express';

// docs/api.md, Authentication: the scheme word is case-insensitive and exactly one space precedes the key.
const BEARER_CREDENTIALS = /^bearer (.+)$/is;

/** The key in the Authorization header, or undefined when the header is not `Bearer <key>`. */
export function bearerKeyOf(request: Pick<Request, 'headers'>): string | undefined {
  return BEARER_CREDENTIALS.exec(request.headers.authorization ?? '')?.[1];
}
