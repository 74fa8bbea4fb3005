import { Request, Response } from 'express';

export const DATA_CACHE_CONTROL = 'private, no-cache';
export const ERROR_CACHE_CONTROL = 'no-store';
export const DATA_VARY = 'Authorization, Accept-Encoding';

/** The data routes: /api/data and below, matched as Express routes them (any letter case). */
const DATA_PATH = /^\/api\/data(?:[/?]|$)/i;
export const isDataPath = (url: string) => DATA_PATH.test(url);

/**
 * Headers of every answer of a data route, set before the route runs so that a 304 carries
 * them too (see responseHeaders). The body depends on the caller's key and may be compressed,
 * hence `Vary`; a client may keep it but must revalidate with its ETag. Errors replace
 * Cache-Control with `no-store` (ProblemDetailsFilter). The weak ETag is Express's own (`etag`
 * setting, over the exact body in `res.send`), which answers 304 when `req.fresh` (see
 * useIfNoneMatchFreshness).
 */
export const DATA_CACHE_HEADERS = { 'Cache-Control': DATA_CACHE_CONTROL, Vary: DATA_VARY };

/**
 * Redefines `req.fresh` for every request of the app, once, on the prototype Express gives
 * them (a getter defined on each request would give each its own hidden class, which kept
 * every finished request alive until a full garbage collection).
 */
export function useIfNoneMatchFreshness(requestPrototype: Request): void {
  Object.defineProperty(requestPrototype, 'fresh', {
    configurable: true,
    get(this: Request) {
      return isFresh(this, this.res as Response);
    },
  });
}

/**
 * RFC 9110 §13.1.2: a GET or HEAD whose If-None-Match matches the ETag (weak comparison, a
 * list, or `*`) gets a 304. Express's own check also answers 200 to a request carrying
 * `Cache-Control: no-cache` or If-Modified-Since; neither applies to an origin server's
 * If-None-Match, and no Last-Modified is sent.
 */
function isFresh(req: Request, res: Response): boolean {
  const condition = req.headers['if-none-match'];
  const etag = res.getHeader('ETag');
  if (req.method !== 'GET' && req.method !== 'HEAD') return false;
  if (res.statusCode < 200 || res.statusCode >= 300) return false;
  if (condition === undefined || typeof etag !== 'string') return false;
  return ifNoneMatchMatches(condition, etag);
}

export function ifNoneMatchMatches(condition: string, etag: string): boolean {
  if (condition.trim() === '*') return true;
  const opaque = (tag: string) => tag.trim().replace(/^W\//, '');
  return condition.split(',').some((tag) => opaque(tag) === opaque(etag));
}
