// `npm run bench`: measures the production server against a naive reference server
// (bench/reference-server.mjs) on the same data, in one run, and writes bench/results/.
// Measurements only: nothing here passes or fails on timing.
import { randomBytes } from 'node:crypto';
import {
  copyFileSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import pg from 'pg';
import { compressionCost } from './compression.mjs';
import { feedScenarios } from './feeds.mjs';
import { overheadByLayer } from './layers.mjs';
import { build, createDatabase, freePort, root, runSql, startServer } from './support.mjs';

const settings = {
  clients: Number(process.env.BENCH_CLIENTS ?? 1_000_000),
  links: Number(process.env.BENCH_LINKS ?? 10_000),
  seconds: Number(process.env.BENCH_SECONDS ?? 10),
  connections: Number(process.env.BENCH_CONNECTIONS ?? 32),
  memoryLinks: Number(process.env.BENCH_MEMORY_LINKS ?? 1_000_000),
  // e.g. BENCH_SCENARIOS=S1,S6 runs only those (and skips the memory check); for profiling.
  only: process.env.BENCH_SCENARIOS?.split(','),
};
// The production start refuses keys under 32 characters.
const API_KEY = randomBytes(24).toString('base64url');
const log = (message) => console.log(`[bench] ${message}`);

// 10K links over two years; 1M clients, a fifth of them on five hot links; ~60 % connected,
// ~35 % new, a few other statuses; 10 % deleted; created at random over two years.
async function loadData(url) {
  const started = Date.now();
  await runSql(
    url,
    `SELECT setseed(0.42)`,
    // random() in a subquery's select list is drawn per row (in an uncorrelated LATERAL it
    // would be drawn once, giving every row the same timestamp).
    `INSERT INTO links (id, created_at, updated_at)
     SELECT 'link-' || i, t, t + interval '1 day'
     FROM (SELECT i, timestamptz '2024-11-01' + random() * interval '730 days' AS t
           FROM generate_series(1, ${settings.links}) AS i) AS g`,
    `INSERT INTO clients (id, link_id, is_deleted, status, created_at, updated_at)
     SELECT 'client-' || i,
            'link-' || CASE WHEN i % 5 = 0 THEN 1 + (i / 5) % 5 ELSE 1 + (i::bigint * 7919) % ${settings.links} END,
            i % 10 = 3,
            CASE WHEN i % 20 < 12 THEN 'connected' WHEN i % 20 < 19 THEN 'new'
                 WHEN i % 40 = 19 THEN 'suspended' ELSE 'pending' END,
            t, t + interval '1 hour'
     FROM (SELECT i, timestamptz '2024-11-01' + random() * interval '730 days' AS t
           FROM generate_series(1, ${settings.clients}) AS i) AS g`,
    `VACUUM ANALYZE`,
  );
  return (Date.now() - started) / 1000;
}

/**
 * Waits until no query runs in the database: a scenario's slowest queries (the reference's
 * deep OFFSETs take seconds) outlive its load run and would weigh on the next one.
 */
async function databaseIdle(url) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (const started = Date.now(); Date.now() - started < 60_000;) {
      const { rows } = await client.query(
        `SELECT count(*)::int AS active FROM pg_stat_activity
         WHERE datname = current_database() AND state = 'active' AND pid <> pg_backend_pid()`,
      );
      if (rows[0].active === 0) break;
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
  } finally {
    await client.end();
  }
  await new Promise((resolve) => setTimeout(resolve, 1000));
}

/** Samples a process's resident memory (MB) while `work` runs; returns the peak. */
async function peakRss(pid, work) {
  let peak = 0;
  const sample = () => {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    if (match) peak = Math.max(peak, Number(match[1]) / 1024);
  };
  sample();
  const timer = setInterval(sample, 50);
  try {
    const result = await work();
    return { result, peak };
  } finally {
    clearInterval(timer);
    sample();
  }
}

async function load(port, paths, connections = settings.connections, seconds = settings.seconds) {
  const result = await autocannon({
    url: `http://127.0.0.1:${port}`,
    connections,
    duration: seconds,
    headers: { authorization: `Bearer ${API_KEY}` },
    requests: [{ setupRequest: (request) => ({ ...request, path: paths() }) }],
  });
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.non2xx + result.errors + result.timeouts,
    requests: result.requests.total,
  };
}

const randomInt = (max) => 1 + Math.floor(Math.random() * max);

async function cursorAtPage(port, page) {
  const url = `http://127.0.0.1:${port}/api/data/clients?page=${page - 1}&limit=100`;
  const res = await fetch(url, { headers: { authorization: `Bearer ${API_KEY}` } });
  return encodeURIComponent((await res.json()).meta.nextCursor);
}

async function main() {
  log(`settings ${JSON.stringify(settings)}`);
  log('building the production server (npm run build)');
  build();
  const database = await createDatabase('bench');
  const servers = [];
  try {
    log(`loading ${settings.clients} clients over ${settings.links} links`);
    const loadSeconds = await loadData(database.url);
    log(`loaded in ${loadSeconds.toFixed(1)} s`);

    const env = { DATABASE_URL: database.url, API_KEYS: API_KEY };
    const ours = startServer('dist/entry/main.js', env, await freePort());
    const reference = startServer('bench/reference-server.mjs', env, await freePort());
    servers.push(ours, reference);
    const startedAt = Date.now();
    await ours.ready;
    const startupMs = Date.now() - startedAt;
    await reference.ready;
    const [ourPort, referencePort] = [ours.port, reference.port];
    // Page 5000 of 100 rows at the default size; smaller data sets use the deepest full page.
    const deepPage = Math.min(5000, Math.floor(settings.clients / 100) - 1);
    const deepCursor = await cursorAtPage(ourPort, deepPage);

    const scenarios = [
      [
        'S1 get client by random id',
        () => `/api/data/clients/client-${randomInt(settings.clients)}`,
      ],
      ['S2 list clients, no filter, page 1', () => '/api/data/clients'],
      [
        'S3 list by a random linkId',
        () => `/api/data/clients?linkId=link-${randomInt(settings.links)}`,
      ],
      [
        'S4 status=connected&isDeleted=false, random page 1-50',
        () => `/api/data/clients?status=connected&isDeleted=false&page=${randomInt(50)}`,
      ],
      ['S5 page=5000', () => '/api/data/clients?page=5000'],
      [
        'S5c page 5000 by cursor',
        () => `/api/data/clients?cursor=${deepCursor}`,
        () => '/api/data/clients?page=5000',
      ],
      ['S6 list links', () => '/api/data/links'],
    ];
    const rows = [];
    const chosen = scenarios.filter(
      ([name]) => !settings.only || settings.only.includes(name.split(' ')[0]),
    );
    const unknown = settings.only?.filter(
      (id) => !scenarios.some(([name]) => name.startsWith(`${id} `)),
    );
    if (unknown?.length)
      throw new Error(`Unknown scenarios in BENCH_SCENARIOS: ${unknown.join(', ')}`);
    for (const [name, ourPaths, referencePaths = ourPaths] of chosen) {
      await databaseIdle(database.url);
      log(`${name}: ours`);
      const mine = await peakRss(ours.child.pid, () => load(ourPort, ourPaths));
      await databaseIdle(database.url);
      log(`${name}: reference`);
      const theirs = await load(referencePort, referencePaths);
      rows.push({ name, ours: mine.result, peakRss: mine.peak, reference: theirs });
    }

    let overhead;
    if (chosen.includes(scenarios[0])) {
      log('per-request overhead by layer: S1 under a CPU profile');
      overhead = await profileLayers(env, scenarios[0][1]);
    }

    // Before the memory check grows the links table: the cost at the base size.
    const compression = await compressionCost({
      port: ourPort,
      pid: ours.child.pid,
      apiKey: API_KEY,
    });
    log(`compression on List Links (${settings.links} links): ${JSON.stringify(compression)}`);

    let linksMemory = [];
    if (settings.memoryLinks > settings.links && !settings.only) {
      const listLinks = () => '/api/data/links';
      const small = await peakRss(ours.child.pid, () => load(ourPort, listLinks, 4, 5));
      log(`growing links to ${settings.memoryLinks} for the memory check`);
      await runSql(
        database.url,
        `INSERT INTO links (id, created_at, updated_at)
         SELECT 'bulk-' || i, now(), now() FROM generate_series(1, ${settings.memoryLinks - settings.links}) AS i`,
        'VACUUM ANALYZE links',
      );
      const large = await peakRss(ours.child.pid, () => load(ourPort, listLinks, 4, 10));
      linksMemory = [
        { links: settings.links, ...small.result, peakRss: small.peak },
        { links: settings.memoryLinks, ...large.result, peakRss: large.peak },
      ];
    }

    // The change feeds: a full walk of every client, then caught-up polling (bench/feeds.mjs).
    const feeds = settings.only
      ? ''
      : await feedScenarios({
          port: ourPort,
          pid: ours.child.pid,
          apiKey: API_KEY,
          databaseUrl: database.url,
          seconds: settings.seconds,
          connections: settings.connections,
          log,
        });
    const report = `${renderReport({ rows, overhead, linksMemory, loadSeconds, startupMs })}\n${feeds}`;
    console.log(`\n${report}`);
    if (!settings.only) {
      const stamp = new Date().toISOString().slice(0, 16).replace(/[:T]/g, '-');
      const file = join(root, 'bench/results', `${stamp}.md`);
      writeFileSync(file, report);
      copyFileSync(file, join(root, 'bench/results/latest.md'));
      log(`written to bench/results/${stamp}.md and bench/results/latest.md`);
    }
  } finally {
    for (const server of servers) server.child.kill('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 500));
    await database.drop();
  }
}

/** Runs a scenario against a fresh server under `--cpu-prof`; the profile, split by layer. */
async function profileLayers(env, paths) {
  const directory = mkdtempSync(join(tmpdir(), 'links-clients-profile-'));
  const server = startServer(
    'dist/entry/main.js',
    { ...env, SHUTDOWN_DRAIN_DELAY_MS: '0' },
    await freePort(),
    ['--cpu-prof', `--cpu-prof-dir=${directory}`],
  );
  try {
    await server.ready;
    const warmUp = await load(server.port, paths, settings.connections, 2);
    const measured = await load(server.port, paths);
    server.child.kill('SIGTERM');
    await server.exited;
    const [file] = readdirSync(directory);
    return overheadByLayer(join(directory, file), warmUp.requests + measured.requests);
  } finally {
    server.child.kill('SIGKILL');
    rmSync(directory, { recursive: true, force: true });
  }
}

const fmt = (value, digits = 0) => (value === undefined ? '—' : value.toFixed(digits));

function renderReport({ rows, overhead, linksMemory, loadSeconds, startupMs }) {
  const lines = [
    `# Benchmark — ${new Date().toISOString()}`,
    '',
    `Data: ${settings.clients.toLocaleString('en')} clients over ${settings.links.toLocaleString('en')} links ` +
      `(loaded in ${loadSeconds.toFixed(1)} s). Each scenario ${settings.seconds} s at ` +
      `${settings.connections} connections (autocannon), ours then the reference, same machine ` +
      `(${cpus().length} cores, ${Math.round(totalmem() / 2 ** 30)} GiB), same database. ` +
      `Server start to listening: ${startupMs} ms (including process start).`,
    '',
    '| scenario | ours req/s | p50 ms | p99 ms | non-2xx | reference req/s | p50 ms | p99 ms | non-2xx | ratio | our peak RSS MB |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...rows.map(
      ({ name, ours, reference, peakRss }) =>
        `| ${name} | ${fmt(ours.rps)} | ${fmt(ours.p50)} | ${fmt(ours.p99)} | ${ours.errors} | ` +
        `${fmt(reference.rps)} | ${fmt(reference.p50)} | ${fmt(reference.p99)} | ${reference.errors} | ` +
        `${fmt(ours.rps / reference.rps, 2)}× | ${fmt(peakRss)} |`,
    ),
    '',
    'S5c: the reference has no cursors, so its figure is the same depth by page number.',
  ];
  if (overhead) {
    lines.push(
      '',
      '## Per-request overhead by layer (S1, CPU profile of our server)',
      '',
      'Main-thread time per request, each profile sample charged to the first layer on its stack',
      '(bench/layers.mjs); sampled wall time, so a socket write that waits counts where it is made.',
      '',
      '| layer | µs per request | share |',
      '|---|---:|---:|',
      ...overhead.rows.map(
        ({ layer, usPerRequest }) =>
          `| ${layer} | ${fmt(usPerRequest)} | ${fmt((100 * usPerRequest) / overhead.totalUs)} % |`,
      ),
      `| all | ${fmt(overhead.totalUs)} | 100 % |`,
    );
  }
  if (linksMemory.length > 0) {
    lines.push(
      '',
      '## List Links memory (4 connections)',
      '',
      '| links | req/s | p50 ms | p99 ms | non-2xx | our peak RSS MB |',
      '|---:|---:|---:|---:|---:|---:|',
      ...linksMemory.map(
        (row) =>
          `| ${row.links.toLocaleString('en')} | ${fmt(row.rps, 1)} | ${fmt(row.p50)} | ${fmt(row.p99)} | ${row.errors} | ${fmt(row.peakRss)} |`,
      ),
    );
  }
  return `${lines.join('\n')}\n`;
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
