import { Request } from 'express';

/**
 * What passport is shown of a request: its Authorization header alone. passport-http-bearer
 * also takes `access_token` from the query string and the body, and only the header may count
 * (docs/api.md, Authentication). `request` is carried for the strategy, not read by passport.
 */
export interface HeaderOnlyRequest {
  headers: { authorization?: string };
  request: Request;
}

export function headerOnly(request: Request): HeaderOnlyRequest {
  return { headers: { authorization: request.headers.authorization }, request };
}
