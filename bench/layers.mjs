// Per-request overhead by layer, from a V8 CPU profile of the server (`node --cpu-prof`) taken
// under load: each busy sample is charged to the first layer found walking up its stack from
// the running function, so a write made by the logger counts as logging, a hash made by the
// key check as auth. Sampled wall time of the main thread, not an exact CPU count.
import { readFileSync } from 'node:fs';

const LAYERS = [
  [
    'logging',
    /node_modules\/(pino|pino-http|nestjs-pino|sonic-boom|pino-std-serializers|@pinojs)\/|dist\/logging\//,
  ],
  ['metrics', /node_modules\/prom-client\/|dist\/metrics\//],
  [
    'auth and rate limiting',
    /node_modules\/(passport|passport-http-bearer|@nestjs\/passport|@nestjs\/throttler)\/|dist\/(auth|api-keys|rate-limit)\//,
  ],
  [
    'validation',
    /node_modules\/(class-validator|class-transformer|validator|libphonenumber-js)\/|dist\/http\/(strict-query\.pipe|parse-query|no-query-params)|dto\//,
  ],
  ['database client', /node_modules\/(pg|pg-pool|pg-protocol|pg-types|typeorm)\/|dist\/database\//],
  ['HTTP, routing and the rest', /./],
];
const GC = 'garbage collection (all layers)';

/** Microseconds of main-thread time per request for each layer, and in all. */
export function overheadByLayer(profileFile, requests) {
  const profile = JSON.parse(readFileSync(profileFile, 'utf8'));
  const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
  const parents = new Map();
  for (const node of profile.nodes)
    for (const child of node.children ?? []) parents.set(child, node.id);
  const layerOf = new Map();
  const classify = (id) => {
    if (layerOf.has(id)) return layerOf.get(id);
    const { functionName, url } = nodes.get(id).callFrame;
    let layer;
    if (functionName === '(idle)' || functionName === '(program)') layer = null;
    else if (functionName === '(garbage collector)') layer = GC;
    else if (url && !url.startsWith('node:'))
      layer = LAYERS.find(([, pattern]) => pattern.test(url))[0];
    else layer = parents.has(id) ? classify(parents.get(id)) : LAYERS.at(-1)[0];
    layerOf.set(id, layer);
    return layer;
  };
  // Only the samples between the first and the last request count: not the start or the stop.
  const servesHttp = (id) =>
    id !== undefined &&
    (nodes.get(id).callFrame.url === 'node:_http_server' || servesHttp(parents.get(id)));
  const serving = profile.samples.map((id) => servesHttp(id));
  // Startup can overlap an early request (seen on Node 24.21: modules still loading seconds
  // after one), so the window opens at the first request after the last module load.
  const loads = (id) =>
    id !== undefined &&
    (nodes.get(id).callFrame.functionName === 'wrapModuleLoad' || loads(parents.get(id)));
  const loaded = profile.samples.findLastIndex((id) => loads(id));
  const first = serving.indexOf(true, loaded + 1);
  const last = serving.lastIndexOf(true);
  if (first === -1) throw new Error(`${profileFile}: no request was served while profiling`);
  const totals = new Map([...LAYERS.map(([name]) => [name, 0]), [GC, 0]]);
  for (let index = first; index <= last; index++) {
    const layer = classify(profile.samples[index]);
    if (layer) totals.set(layer, totals.get(layer) + profile.timeDeltas[index]);
  }
  const rows = [...totals].map(([layer, micros]) => ({ layer, usPerRequest: micros / requests }));
  return { rows, totalUs: rows.reduce((sum, row) => sum + row.usPerRequest, 0) };
}
