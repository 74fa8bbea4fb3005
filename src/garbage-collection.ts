import { setFlagsFromString } from 'node:v8';

/**
 * Turns off V8's allocation-site pretenuring. V8 allocates straight into the old generation the
 * objects of a code site whose earlier objects tended to survive a young collection, and an
 * object made once per request can be such a site: passport's per-request strategy, given its
 * actions one by one, became one under load. An old object keeps the young ones it points to
 * (here, its whole request) alive until the next full collection, so every young collection
 * promoted ~4 MB of finished requests, and under the image's heap bound a full collection ran
 * every 0.6 s. Without pretenuring a request's objects die young (docs/performance.md, Memory).
 */
export function keepRequestObjectsYoung(): void {
  setFlagsFromString('--no-allocation-site-pretenuring');
}
