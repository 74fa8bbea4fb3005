// `node bench/compressed-pages.mjs` (npm run bench:compressed-pages): BENCH_CONNECTIONS (256, the
// default in-flight cap) connections asking for List Clients pages of 100 rows at once, each with
// `Accept-Encoding: <encoding>`, for BENCH_SECONDS, per encoding of BENCH_ENCODINGS (identity, gzip,
// br), each server run with the image's options (in BENCH_POD_MEMORY when set). Measured: the
// server's peak RSS (VmHWM) and CPU per request. BENCH_SERVER_SCRIPT runs other builds (e.g. one
// copied aside) for an A/B in one run. Measurements only: prints figures, nothing passes or fails.
import { loadavg } from 'node:os';
import { API_KEY, measure, peakRssMb } from './measure.mjs';
import {
  build,
  createDatabase,
  freePort,
  loadData,
  startServer,
  IMAGE_NODE_ARGS,
} from './support.mjs';

const settings = {
  connections: Number(process.env.BENCH_CONNECTIONS ?? 256),
  seconds: Number(process.env.BENCH_SECONDS ?? 15),
  encodings: (process.env.BENCH_ENCODINGS ?? 'identity,gzip,br').split(','),
  scripts: (process.env.BENCH_SERVER_SCRIPT ?? 'dist/main.js').split(','),
};
const log = (message) => console.log(`[compressed-pages] ${message}`);

async function run(script, encoding, databaseUrl) {
  const server = startServer(
    script,
    {
      DATABASE_URL: databaseUrl,
      API_KEYS: API_KEY,
      LOG_LEVEL: 'warn',
      // One key asks for every page: the per-key and counting caps would shed most of them.
      MAX_REQUESTS_PER_KEY: String(settings.connections),
      MAX_CONCURRENT_COUNTS: String(settings.connections),
    },
    await freePort(),
    IMAGE_NODE_ARGS,
  );
  try {
    await server.ready;
    let page = 0;
    // Pages of the first 100 by number: each request renders and compresses a body of its own.
    const paths = () => `/api/data/clients?limit=100&page=${(page++ % 100) + 1}`;
    const result = await measure(server, databaseUrl, paths, {
      connections: settings.connections,
      seconds: settings.seconds,
      headers: { 'accept-encoding': encoding },
    });
    return { script, encoding, ...result, vmHwm: peakRssMb(server.child.pid) };
  } finally {
    server.child.kill('SIGKILL');
    await server.exited;
  }
}

if (!process.env.BENCH_SKIP_BUILD) build();
const database = await createDatabase('compressed_pages');
try {
  await loadData(database.url, { links: 100, clients: 10_000 });
  log(`settings ${JSON.stringify(settings)}`);
  const results = [];
  for (const encoding of settings.encodings) {
    for (const script of settings.scripts) {
      const result = await run(script, encoding, database.url);
      log(JSON.stringify(result));
      results.push(result);
    }
  }
  console.log(
    `\nLoad average at the end ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}.\n`,
  );
  console.log(
    '| server | encoding | req/s | p99 ms | non-2xx | server CPU µs a request | peak RSS (VmHWM) MB |',
  );
  console.log('|---|---|---:|---:|---:|---:|---:|');
  for (const r of results) {
    console.log(
      `| ${r.script} | ${r.encoding} | ${Math.round(r.rps)} | ${r.p99} | ${r.errors} | ${Math.round(r.cpuUs)} | ${r.vmHwm.toFixed(0)} |`,
    );
  }
} finally {
  await database.drop();
}
