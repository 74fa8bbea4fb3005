import { IncomingMessage, ServerResponse } from 'node:http';
import { NextFunction, Request, Response } from 'express';
import helmet from 'helmet';
import { DATA_CACHE_HEADERS, isDataPath } from './caching';

type Middleware = (req: IncomingMessage, res: ServerResponse, next: () => void) => void;

/**
 * Data responses are JSON read by programs. Of helmet's headers they carry those that keep a
 * browser from reading them as another type, framing them, loading anything through them or
 * handing them to another origin, and HSTS; the rest (referrer, DNS prefetch, XSS filter, …)
 * concern HTML pages and would only lengthen every response. Pages — the /docs reference, the
 * 404 of an unknown path — get helmet's defaults.
 */
const dataSecurityHeaders = helmet({
  contentSecurityPolicy: {
    useDefaults: false,
    directives: { defaultSrc: ["'none'"], frameAncestors: ["'none'"] },
  },
  xFrameOptions: { action: 'deny' },
  crossOriginOpenerPolicy: false,
  originAgentCluster: false,
  referrerPolicy: false,
  xDnsPrefetchControl: false,
  xDownloadOptions: false,
  xPermittedCrossDomainPolicies: false,
  xXssProtection: false,
});
const pageSecurityHeaders = helmet();

/**
 * The headers a middleware sets when it depends on nothing in the request, read once by
 * running it on a stand-in response: helmet's fixed options give fixed values.
 */
function headersSetBy(middleware: Middleware): Map<string, string> {
  const headers = new Map<string, string>();
  const response = {
    setHeader: (name: string, value: string) => headers.set(name, value),
    removeHeader: (name: string) => headers.delete(name),
  };
  middleware({ headers: {} } as IncomingMessage, response as unknown as ServerResponse, () => {});
  return headers;
}

/** Every data response's headers, cache and security, set in one call per request. */
const DATA_HEADERS = new Map([
  ...Object.entries(DATA_CACHE_HEADERS),
  ...headersSetBy(dataSecurityHeaders),
]);

/**
 * The headers of a data response (caching, security) or of a page, decided once per request.
 * Pages are compressed too, so they vary by Accept-Encoding, whether or not this caller sent it.
 */
export function responseHeaders(req: Request, res: Response, next: NextFunction): void {
  if (!isDataPath(req.url)) {
    res.vary('Accept-Encoding');
    return pageSecurityHeaders(req, res, next);
  }
  res.setHeaders(DATA_HEADERS);
  next();
}
