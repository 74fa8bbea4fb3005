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

const BOUNDS_OLD_SPACE = /--max[-_]old[-_]space[-_]size/;
const BOUNDS_YOUNG_GENERATION = /--max[-_]semi[-_]space[-_]size/;

/**
 * The old space bounded without the young generation (docs/operations.md, Memory). On a large
 * machine Node 24 lets the young generation reach 3 × 64 MB, and V8 runs a full collection in
 * place of a young one whenever the old space has less room left than the young generation may
 * promote: with 128 MB, full collections many times a second and list pages at a fraction of
 * the image's throughput. Under a container's memory limit it stays at 3 × 1 MB instead,
 * collected several times as often as with the image's 8 MB (figures:
 * bench/results/2026-11-24-node24.21-heap-bounds.md).
 */
export function unboundedYoungGenerationWarning(
  nodeOptions: string | undefined,
  execArgv: readonly string[],
): string | undefined {
  const flags = [nodeOptions ?? '', ...execArgv].join(' ');
  if (!BOUNDS_OLD_SPACE.test(flags) || BOUNDS_YOUNG_GENERATION.test(flags)) return undefined;
  return (
    'The V8 old space is bounded but its young generation is not: give --max-semi-space-size=8 ' +
    'beside --max-old-space-size, as the image does (docs/operations.md, Memory)'
  );
}
