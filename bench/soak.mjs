// `npm run soak`: a bounded soak of the production server — mixed requests, errors included —
// sampling its memory, to show there is no growth trend after warm-up and no unexpected
// status. Prints figures; fails only on an unexpected status or a crash, never on timing.
//   SOAK_REQUESTS (default 200000), SOAK_CONNECTIONS (16), SOAK_CLIENTS (20000), DATABASE_URL,
//   SOAK_NODE_OPTIONS (the server's NODE_OPTIONS, e.g. the image's heap bound), BENCH_NODE
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';
import { build, createDatabase, freePort, runSql, startServer } from './support.mjs';

const requests = Number(process.env.SOAK_REQUESTS ?? 200_000);
const connections = Number(process.env.SOAK_CONNECTIONS ?? 16);
const clients = Number(process.env.SOAK_CLIENTS ?? 20_000);
// The production start refuses keys under 32 characters.
const API_KEY = randomBytes(24).toString('base64url');
const nodeOptions = process.env.SOAK_NODE_OPTIONS;
const EXPECTED = new Set([200, 400, 401, 404, 405]);

const pick = (items) => items[Math.floor(Math.random() * items.length)];
const n = (max) => 1 + Math.floor(Math.random() * max);

// The mix: mostly valid reads, plus the errors real consumers make.
const MIX = [
  [40, () => `/api/data/clients?page=${n(50)}&limit=${pick([10, 100, 500])}`],
  [15, () => `/api/data/clients?linkId=link-${n(200)}&status=${pick(['new', 'connected'])}`],
  [10, () => `/api/data/clients?isDeleted=${pick(['true', 'false'])}&page=${n(20)}`],
  [15, () => `/api/data/clients/client-${n(clients * 1.1)}`],
  [5, () => `/api/data/links/link-${n(220)}`],
  [
    10,
    () =>
      pick([
        '/api/data/clients?page=0',
        '/api/data/clients?status=deleted&x=1',
        '/api/data/links?limit=5',
      ]),
  ],
  [5, () => '/api/data/nope'],
];
const WEIGHT = MIX.reduce((sum, [weight]) => sum + weight, 0);
function nextPath() {
  let roll = Math.random() * WEIGHT;
  for (const [weight, path] of MIX) if ((roll -= weight) < 0) return path();
  return MIX[0][1]();
}

function rssMb(pid) {
  return Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))[1]) / 1024;
}

async function main() {
  build();
  const db = await createDatabase('soak');
  let server;
  try {
    await runSql(
      db.url,
      `INSERT INTO links (id) SELECT 'link-' || i FROM generate_series(1, 200) AS i`,
      `INSERT INTO clients (id, link_id, is_deleted, status, created_at)
       SELECT 'client-' || i, 'link-' || (1 + i % 200), i % 10 = 0,
              CASE WHEN i % 3 = 0 THEN 'new' ELSE 'connected' END, now() - i * interval '1 minute'
       FROM generate_series(1, ${clients}) AS i`,
      'VACUUM ANALYZE',
    );
    const port = await freePort();
    const api = startServer(
      'dist/main.js',
      {
        DATABASE_URL: db.url,
        API_KEYS: API_KEY,
        ...(nodeOptions && { NODE_OPTIONS: nodeOptions }),
      },
      port,
    );
    server = api.child;
    await api.ready;
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const idleRss = rssMb(server.pid);
    const samples = [];
    const started = Date.now();
    const timer = setInterval(
      () => samples.push([(Date.now() - started) / 1000, rssMb(server.pid)]),
      100,
    );
    const statuses = new Map();
    const instance = autocannon({
      url: `http://127.0.0.1:${port}`,
      connections,
      amount: requests,
      headers: { authorization: `Bearer ${API_KEY}` },
      requests: [
        {
          setupRequest: (request) => {
            // One request in twenty goes without a valid key.
            const headers =
              Math.random() < 0.05 ? { authorization: 'Bearer wrong' } : request.headers;
            return { ...request, headers, path: nextPath() };
          },
        },
      ],
    });
    instance.on('response', (_client, status) =>
      statuses.set(status, (statuses.get(status) ?? 0) + 1),
    );
    const result = await instance;
    clearInterval(timer);

    const unexpected = [...statuses].filter(([status]) => !EXPECTED.has(status));
    const afterWarmup = samples.slice(Math.floor(samples.length / 5));
    const slope = slopePerMinute(afterWarmup);
    const rss = samples.map(([, mb]) => mb);
    console.log(`
Soak (NODE_OPTIONS=${nodeOptions ?? ''}): ${result.requests.total} requests in ${result.duration.toFixed(1)} s at ${connections} connections (${result.requests.average.toFixed(0)} req/s)
  statuses:        ${[...statuses]
    .sort()
    .map(([s, c]) => `${s}×${c}`)
    .join('  ')}
  unexpected:      ${unexpected.length === 0 ? 'none' : unexpected.map(([s, c]) => `${s}×${c}`).join(' ')}
  errors/timeouts: ${result.errors}/${result.timeouts}
  RSS MB:          idle ${idleRss.toFixed(0)}, start ${rss[0]?.toFixed(0)}, after warm-up ${afterWarmup[0]?.[1].toFixed(0)}, end ${rss.at(-1)?.toFixed(0)}, max ${Math.max(...rss).toFixed(0)}
  RSS trend after warm-up: ${slope.toFixed(2)} MB/min (${afterWarmup.length} samples)`);
    if (unexpected.length > 0 || result.errors > 0 || server.exitCode !== null)
      process.exitCode = 1;
  } finally {
    server?.kill('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 500));
    await db.drop();
  }
}

/** Least-squares slope of [seconds, MB] samples, in MB per minute. */
function slopePerMinute(points) {
  if (points.length < 2) return 0;
  const meanX = points.reduce((s, [x]) => s + x, 0) / points.length;
  const meanY = points.reduce((s, [, y]) => s + y, 0) / points.length;
  const num = points.reduce((s, [x, y]) => s + (x - meanX) * (y - meanY), 0);
  const den = points.reduce((s, [x]) => s + (x - meanX) ** 2, 0);
  return (num / den) * 60;
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
