import { Request } from 'express';
import { percentDecoded } from '../query/parse-query';

const undecodableSegments = new WeakMap<Request, Set<string>>();

/**
 * Express answers a path segment that is not valid percent-encoded UTF-8 with its own 400
 * while routing, before authentication. Such a segment is routed instead as its literal text
 * and remembered, so an API route still answers 401 first, and 400 naming the parameter once
 * the caller is known (ReadRequestGuard); on a path that exists for no one it is a 404.
 */
export function routeUndecodableSegments(req: Request): void {
  const queryStart = req.url.indexOf('?');
  const path = queryStart === -1 ? req.url : req.url.slice(0, queryStart);
  // Without a percent sign there is nothing to decode: most requests stop here.
  if (!path.includes('%')) return;
  const found = new Set<string>();
  const segments = path.split('/').map((segment) => {
    if (percentDecoded(segment) !== undefined) return segment;
    found.add(segment);
    return encodeURIComponent(segment);
  });
  if (found.size > 0) {
    undecodableSegments.set(req, found);
    req.url = segments.join('/') + (queryStart === -1 ? '' : req.url.slice(queryStart));
  }
}

/** Names of the route parameters that were not valid percent-encoding in the request path. */
export function undecodableParams(req: Request): string[] {
  const found = undecodableSegments.get(req);
  if (!found) return [];
  return Object.entries(req.params ?? {})
    .filter(([, value]) => typeof value === 'string' && found.has(value))
    .map(([name]) => name);
}
