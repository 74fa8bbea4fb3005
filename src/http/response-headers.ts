import { NextFunction, Request, Response } from 'express';
import helmet from 'helmet';
import { isDataPath, setDataCacheHeaders } from './caching';

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

/** The headers of a data response (caching, security) or of a page, decided once per request. */
export function responseHeaders(req: Request, res: Response, next: NextFunction): void {
  if (!isDataPath(req.url)) return pageSecurityHeaders(req, res, next);
  setDataCacheHeaders(res);
  dataSecurityHeaders(req, res, next);
}
