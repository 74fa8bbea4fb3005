// `npm run bench`: measures the production server against a naive reference server
// (bench/reference-server.mjs) on the same data, in one run, and writes bench/results/.
// Measurements only: nothing here passes or fails on timing.
import { copyFileSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { compressionCost } from './compression.mjs';
import { feedScenarios } from './feeds.mjs';
import { overheadByLayer } from './layers.mjs';
import { API_KEY, load, measure, rssMb } from './measure.mjs';
import {
  build,
  createDatabase,
  environmentOf,
  freePort,
  loadData,
  root,
  runSql,
  startServer,
  IMAGE_NODE_ARGS,
} from './support.mjs';

const settings = {
  clients: Number(process.env.BENCH_CLIENTS ?? 1_000_000),
  links: Number(process.env.BENCH_LINKS ?? 10_000),
  // Each scenario runs in rounds, every server once per round (alternating the order), and each
  // figure is the median of its rounds: on a shared machine one run of one server can be off by
  // a quarter, and one slow stretch would otherwise land on whichever server ran then.
  rounds: Number(process.env.BENCH_ROUNDS ?? 3),
  seconds: Number(process.env.BENCH_SECONDS ?? 5),
  // What runs once rather than in rounds (the CPU profile by layer, the feeds' polling) runs this long.
  singleRunSeconds: 10,
  connections: Number(process.env.BENCH_CONNECTIONS ?? 32),
  memoryLinks: Number(process.env.BENCH_MEMORY_LINKS ?? 1_000_000),
  // e.g. BENCH_SCENARIOS=S1,S6 runs only those (and skips the memory check); for profiling.
  only: process.env.BENCH_SCENARIOS?.split(','),
};
const log = (message) => console.log(`[bench] ${message}`);
const SCRIPT = 'dist/main.js';

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

const randomInt = (max) => 1 + Math.floor(Math.random() * max);

async function cursorAtPage(port, page) {
  const url = `http://127.0.0.1:${port}/api/data/clients?page=${page - 1}&limit=100`;
  const res = await fetch(url, { headers: { authorization: `Bearer ${API_KEY}` } });
  return encodeURIComponent((await res.json()).meta.nextCursor);
}

// The setting an option makes: a fixed old space and a share of the memory limit are one (Node
// lets the share win whatever their order).
const settingOf = (option) => option.split('=')[0].replace(/-percentage$/, '');

/** The image's Node options, each replaced by `options`' own for the same setting. */
const withImageNodeArgs = (options) => [
  ...IMAGE_NODE_ARGS.filter((arg) => !options.some((o) => settingOf(o) === settingOf(arg))),
  ...options,
];

/**
 * The servers measured, in the order each scenario runs them: ours, optionally ours under other
 * Node options (BENCH_VARIANT_NODE_OPTIONS, e.g. a heap bound), the NestJS floor, the raw
 * reference, then ours again — the A/A pair whose difference is the run's noise.
 */
async function startServers(env) {
  // Several variants are separated by `;`, e.g. `--max-old-space-size=96;LOG_LEVEL=warn`: in
  // each, `--` options go on node's command line in place of the image's of the same setting
  // (so V8 options that NODE_OPTIONS refuses, e.g. --optimize-for-size, can be measured too),
  // NAME=value words to the environment, and BUILD=<dir> runs another build (a copy of dist/
  // made before a change: an A/B).
  const variants = process.env.BENCH_VARIANT_NODE_OPTIONS?.split(';').filter(Boolean) ?? [];
  const wordsOf = (variant) => variant.split(' ').filter(Boolean);
  const buildOf = (variant) => wordsOf(variant).find((word) => word.startsWith('BUILD='));
  const variantScript = (variant) =>
    buildOf(variant) ? join(buildOf(variant).slice('BUILD='.length), 'main.js') : SCRIPT;
  const variantOptions = (variant) => wordsOf(variant).filter((word) => word.startsWith('--'));
  const variantEnv = (variant) => {
    const words = wordsOf(variant).filter((w) => !w.startsWith('BUILD=') && !w.startsWith('--'));
    return { ...env, ...environmentOf(words) };
  };
  const specs = [
    ['ours', SCRIPT, env, []],
    ...variants.map((variant, index) => [
      `variant${index}`,
      variantScript(variant),
      variantEnv(variant),
      variantOptions(variant),
    ]),
    ['nest', 'bench/nest-reference.mjs', env, []],
    ['raw', 'bench/reference-server.mjs', env, []],
  ];
  const servers = {};
  // Every server runs with the image's Node options and prints its collections (--trace-gc, a
  // line per collection): their pauses per request are what a heap bound costs, steadier than
  // the requests/s it changes.
  for (const [key, script, serverEnv, options] of specs) {
    const nodeArgs = ['--trace-gc', ...withImageNodeArgs(options)];
    servers[key] = startServer(script, serverEnv, await freePort(), nodeArgs);
  }
  const startedAt = Date.now();
  await servers.ours.ready;
  const startupMs = Date.now() - startedAt;
  await Promise.all(Object.values(servers).map((server) => server.ready));
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const idleRss = Object.fromEntries(
    Object.entries(servers).map(([key, server]) => [key, rssMb(server.child.pid)]),
  );
  return { servers, startupMs, idleRss, variants };
}

// Separate bench modules (e.g. bench/feeds.mjs): each is `async (context) => markdown lines`,
// run after the scenarios against the same servers and data (before the memory check grows
// the links table); context is { servers, database, settings, measure, log }.
const modules = [
  async ({ servers }) => {
    const { port, child } = servers.ours;
    const rows = await compressionCost({ port, pid: child.pid, apiKey: API_KEY });
    return [
      '',
      `## Compression on List Links (${settings.links.toLocaleString('en')} links, sequential requests)`,
      '',
      '| asked | sent | wire bytes | server CPU ms per request | latency ms |',
      '|---|---|---:|---:|---:|',
      ...rows.map(
        (row) =>
          `| ${row.encoding} | ${row.sent} | ${row.wireBytes} | ${row.serverCpuMsPerRequest} | ${row.latencyMs} |`,
      ),
    ];
  },
];

async function main() {
  if (!Number.isInteger(settings.rounds) || settings.rounds < 1)
    throw new Error(`BENCH_ROUNDS must be a whole number of rounds, at least 1`);
  log(`settings ${JSON.stringify(settings)}`);
  log(`servers run on ${serverNode()}`);
  log('building the production server (npm run build)');
  build();
  const database = await createDatabase('bench');
  let started;
  try {
    log(`loading ${settings.clients} clients over ${settings.links} links`);
    const loadSeconds = await loadData(database.url, settings);
    log(`loaded in ${loadSeconds.toFixed(1)} s`);

    started = await startServers({ DATABASE_URL: database.url, API_KEYS: API_KEY });
    const { servers } = started;
    // Page 5000 of 100 rows at the default size; smaller data sets use the deepest full page.
    const deepPage = Math.min(5000, Math.floor(settings.clients / 100) - 1);
    const deepCursor = await cursorAtPage(servers.ours.port, deepPage);

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
    const chosen = scenarios.filter(
      ([name]) => !settings.only || settings.only.includes(name.split(' ')[0]),
    );
    const unknown = settings.only?.filter(
      (id) => !scenarios.some(([name]) => name.startsWith(`${id} `)),
    );
    if (unknown?.length)
      throw new Error(`Unknown scenarios in BENCH_SCENARIOS: ${unknown.join(', ')}`);
    const options = { connections: settings.connections, seconds: settings.seconds };
    // A cold server (JIT, connections, prepared statements, caches, a heap still growing to
    // its working size) would lose the first scenario to the warm ones and inflate the A/A
    // spread: every server first gets the scenarios' load, unmeasured. (At 8 connections, a
    // heap-bounded server still ran its full collections during S1's measurement: 1.28× the
    // CPU per get of the unbounded one, against 1.15× once warm at 32.) On a slow machine our
    // server took ~20 s of load to settle: after 3 s per path, its first S1 run cost 1.2× the
    // CPU per get of its second (the A/A pair).
    const warmUpSeconds = 10;
    log(
      `warming up every server (S1 and S3 paths, ${warmUpSeconds} s each, ${settings.connections} connections)`,
    );
    for (const server of Object.values(servers))
      for (const [, paths] of [scenarios[0], scenarios[2]])
        await load(server.port, paths, {
          connections: settings.connections,
          seconds: warmUpSeconds,
        });
    const rows = [];
    const keys = [
      'ours',
      ...Object.keys(servers).filter((key) => key.startsWith('variant')),
      'nest',
      'raw',
      'oursAgain',
    ];
    for (const [name, ourPaths, referencePaths = ourPaths] of chosen) {
      const runs = Object.fromEntries(keys.map((key) => [key, []]));
      for (let round = 0; round < settings.rounds; round++) {
        for (const key of round % 2 === 0 ? keys : [...keys].reverse()) {
          const server = servers[key === 'oursAgain' ? 'ours' : key];
          const paths = key === 'nest' || key === 'raw' ? referencePaths : ourPaths;
          await databaseIdle(database.url);
          log(`${name}: ${key}, round ${round + 1}`);
          runs[key].push(await measure(server, database.url, paths, options));
        }
      }
      const row = { name, ...Object.fromEntries(keys.map((key) => [key, medianRun(runs[key])])) };
      rows.push(row);
      log(summarise(row));
    }

    let overhead;
    if (chosen.includes(scenarios[0])) {
      log('per-request overhead by layer: S1 under a CPU profile');
      overhead = await profileLayers(
        { DATABASE_URL: database.url, API_KEYS: API_KEY },
        scenarios[0][1],
      );
    }

    const extra = [];
    for (const module of modules)
      extra.push(...(await module({ servers, database, settings, measure, log })));

    let linksMemory = [];
    if (settings.memoryLinks > settings.links && !settings.only) {
      const listLinks = () => '/api/data/links';
      const few = { connections: 4, seconds: 5 };
      // Ours and each variant (a heap bound is where a long list would fail).
      const keys = Object.keys(servers).filter(
        (key) => key === 'ours' || key.startsWith('variant'),
      );
      for (const key of keys)
        linksMemory.push({
          key,
          links: settings.links,
          ...(await measure(servers[key], database.url, listLinks, few)),
        });
      log(`growing links to ${settings.memoryLinks} for the memory check`);
      await runSql(
        database.url,
        `INSERT INTO links (id, created_at, updated_at)
         SELECT 'bulk-' || i, now(), now() FROM generate_series(1, ${settings.memoryLinks - settings.links}) AS i`,
        'VACUUM ANALYZE links',
      );
      for (const key of keys)
        linksMemory.push({
          key,
          links: settings.memoryLinks,
          ...(await measure(servers[key], database.url, listLinks, { ...few, seconds: 10 })),
        });
    }

    // The change feeds: a full walk of every client, then caught-up polling (bench/feeds.mjs).
    const feeds = settings.only
      ? ''
      : await feedScenarios({
          port: servers.ours.port,
          pid: servers.ours.child.pid,
          apiKey: API_KEY,
          databaseUrl: database.url,
          seconds: settings.singleRunSeconds,
          connections: settings.connections,
          log,
        });
    const report = `${renderReport({ rows, overhead, linksMemory, loadSeconds, started, extra })}\n${feeds}`;
    console.log(`\n${report}`);
    if (!settings.only) {
      const stamp = new Date().toISOString().slice(0, 16).replace(/[:T]/g, '-');
      const file = join(root, 'bench/results', `${stamp}.md`);
      writeFileSync(file, report);
      copyFileSync(file, join(root, 'bench/results/latest.md'));
      log(`written to bench/results/${stamp}.md and bench/results/latest.md`);
    }
  } finally {
    for (const server of Object.values(started?.servers ?? {})) server.child.kill('SIGTERM');
    await new Promise((resolve) => setTimeout(resolve, 500));
    await database.drop();
  }
}

const serverNode = () =>
  execFileSync(process.env.BENCH_NODE || 'node', ['--version'])
    .toString()
    .trim();

/** The failed requests of a run, by scenario and server (`S5 raw 12`), or 0. */
function failures(rows) {
  const failed = rows.flatMap((row) =>
    Object.entries(row)
      .filter(([, result]) => result?.errors > 0)
      .map(([server, result]) => `${row.name.split(' ')[0]} ${server} ${result.errors}`),
  );
  return failed.length > 0 ? failed.join(', ') : 0;
}

function summarise({ name, ours, oursAgain, nest, raw }) {
  return (
    `${name.split(' ')[0]}: req/s ours ${fmt(ours.rps)}/${fmt(oursAgain.rps)} nest ${fmt(nest.rps)} ` +
    `raw ${fmt(raw.rps)}; CPU µs/req ours ${fmt(ours.cpuUs)} nest ${fmt(nest.cpuUs)} raw ${fmt(raw.cpuUs)}`
  );
}

/** Runs a scenario against a fresh server under `--cpu-prof`; the profile, split by layer. */
async function profileLayers(env, paths) {
  const directory = mkdtempSync(join(tmpdir(), 'links-clients-profile-'));
  const server = startServer(
    'dist/main.js',
    { ...env, SHUTDOWN_DRAIN_DELAY_MS: '0' },
    await freePort(),
    ['--cpu-prof', `--cpu-prof-dir=${directory}`],
  );
  try {
    await server.ready;
    const options = { connections: settings.connections, seconds: settings.singleRunSeconds };
    const warmUp = await load(server.port, paths, { ...options, seconds: 2 });
    const measured = await load(server.port, paths, options);
    server.child.kill('SIGTERM');
    await server.exited;
    const [file] = readdirSync(directory);
    // BENCH_PROFILE_DIR keeps the profile, to read by function (e.g. in Chrome's DevTools).
    if (process.env.BENCH_PROFILE_DIR)
      copyFileSync(join(directory, file), join(process.env.BENCH_PROFILE_DIR, file));
    return overheadByLayer(join(directory, file), warmUp.requests + measured.requests);
  } finally {
    server.child.kill('SIGKILL');
    rmSync(directory, { recursive: true, force: true });
  }
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length / 2;
  return sorted.length % 2 ? sorted[middle - 0.5] : (sorted[middle - 1] + sorted[middle]) / 2;
};

/** One server's runs of a scenario as one: medians, but the worst peak and every failure. */
function medianRun(runs) {
  const medianOf = (field) =>
    runs.some((run) => run[field] === undefined)
      ? undefined
      : median(runs.map((run) => run[field]));
  return {
    rps: medianOf('rps'),
    p50: medianOf('p50'),
    p99: medianOf('p99'),
    cpuUs: medianOf('cpuUs'),
    databaseCpuUs: medianOf('databaseCpuUs'),
    gcPauseUs: medianOf('gcPauseUs'),
    otherThreadsCpuUs: medianOf('otherThreadsCpuUs'),
    peakRss: Math.max(...runs.map((run) => run.peakRss)),
    errors: runs.reduce((sum, run) => sum + run.errors, 0),
  };
}

const fmt = (value, digits = 0) => (value === undefined ? '—' : value.toFixed(digits));

const ratio = (a, b) => (a === undefined || b === undefined ? '—' : `${fmt(a / b, 2)}×`);
const mean = (a, b) => (a === undefined || b === undefined ? undefined : (a + b) / 2);
/** `extra - base` as a signed share of `whole`: `+3.1 %`. */
const extraShare = (extra, base, whole) =>
  [extra, base, whole].includes(undefined)
    ? '—'
    : `${extra >= base ? '+' : '−'}${fmt((100 * Math.abs(extra - base)) / whole, 1)} %`;
const spread = (a, b) =>
  a === undefined || b === undefined ? '—' : `${fmt((100 * Math.abs(a - b)) / mean(a, b))} %`;

function renderReport({ rows, overhead, linksMemory, loadSeconds, started, extra }) {
  const { startupMs, idleRss, variants } = started;
  const columns = [
    ['ours', 'ours'],
    ...variants.map((_, index) => [`variant${index}`, `ours+V${index + 1}`]),
    ['nest', 'NestJS floor'],
    ['raw', 'raw'],
  ];
  // Ours is the mean of its two series of runs (one before the references in each round, one after).
  const oursOf = (row, field) =>
    field === 'peakRss'
      ? Math.max(row.ours[field], row.oursAgain[field])
      : mean(row.ours[field], row.oursAgain[field]);
  const value = (row, key, field) => (key === 'ours' ? oursOf(row, field) : row[key][field]);
  const header = (title) => [
    `| scenario | ${columns.map(([, label]) => `${label} ${title}`).join(' | ')} |`,
    `|---|${columns.map(() => '---:').join('|')}|`,
  ];
  const table = (title, field, digits = 0) => [
    ...header(title),
    ...rows.map(
      (row) =>
        `| ${row.name} | ${columns.map(([key]) => fmt(value(row, key, field), digits)).join(' | ')} |`,
    ),
  ];
  const lines = [
    `# Benchmark — ${new Date().toISOString()}`,
    '',
    `Data: ${settings.clients.toLocaleString('en')} clients over ${settings.links.toLocaleString('en')} links ` +
      `(loaded in ${loadSeconds.toFixed(1)} s). Each scenario runs ${settings.rounds} rounds; in each, ` +
      `${settings.seconds} s at ${settings.connections} connections (autocannon) against each ` +
      `server in turn — ours, ` +
      `${variants.map((options, index) => `ours with \`${options}\` (V${index + 1}), `).join('')}` +
      `the bare NestJS floor ` +
      `(bench/nest-reference.mjs), the raw node:http reference (bench/reference-server.mjs), ` +
      `then ours again (A/A) — in reverse order every other round. Every figure is the median ` +
      `of a server's rounds (peak RSS: the highest). Same machine (${cpus().length} cores, ` +
      `${Math.round(totalmem() / 2 ** 30)} GiB), same database. Servers on Node ${serverNode()}, with the image's options ` +
      `(\`${IMAGE_NODE_ARGS.join(' ')}\`, MALLOC_ARENA_MAX=2${process.env.BENCH_POD_MEMORY ? `, in a ${Number(process.env.BENCH_POD_MEMORY) / 2 ** 20} MiB memory cgroup each` : ''}). ` +
      `Our server's start to listening: ${startupMs} ms (including process start).`,
    '',
    '## Ratios (ours over each reference; A/A: our two series of runs of the scenario)',
    '',
    '| scenario | req/s ours/raw | req/s NestJS/raw | server CPU ours/NestJS | DB CPU ours/raw | A/A req/s | A/A CPU/req |',
    '|---|---:|---:|---:|---:|---:|---:|',
    ...rows.map(
      (row) =>
        `| ${row.name} | ${ratio(oursOf(row, 'rps'), row.raw.rps)} | ${ratio(row.nest.rps, row.raw.rps)} | ` +
        `${ratio(oursOf(row, 'cpuUs'), row.nest.cpuUs)} | ${ratio(oursOf(row, 'databaseCpuUs'), row.raw.databaseCpuUs)} | ` +
        `${spread(row.ours.rps, row.oursAgain.rps)} | ${spread(row.ours.cpuUs, row.oursAgain.cpuUs)} |`,
    ),
    ...(variants.length === 0
      ? []
      : [
          '',
          '## Variants of our server (over ours; compare with the A/A spread)',
          '',
          `| scenario | ${variants.map((_, i) => `V${i + 1} req/s | V${i + 1} CPU/req | V${i + 1} GC pause | V${i + 1} other threads`).join(' | ')} |`,
          `|---|${variants.map(() => '---:|---:|---:|---:').join('|')}|`,
          ...rows.map(
            (row) =>
              `| ${row.name} | ${variants
                .map(
                  (_, i) =>
                    `${ratio(row[`variant${i}`].rps, oursOf(row, 'rps'))} | ` +
                    `${ratio(row[`variant${i}`].cpuUs, oursOf(row, 'cpuUs'))} | ` +
                    `${extraShare(row[`variant${i}`].gcPauseUs, oursOf(row, 'gcPauseUs'), oursOf(row, 'cpuUs'))} | ` +
                    `${extraShare(row[`variant${i}`].otherThreadsCpuUs, oursOf(row, 'otherThreadsCpuUs'), oursOf(row, 'cpuUs'))}`,
                )
                .join(' | ')} |`,
          ),
          '',
          "GC pause: the variant's main-thread collection pauses per request (--trace-gc) minus ours;",
          "other threads: the CPU per request of its threads beside the main one (V8's collector",
          "helpers and compilers, libuv's pool writing the log) minus ours; both as a share of our",
          'CPU per request. For a heap bound, their sum is its cost in collecting, steadier than its',
          'ratios of requests/s.',
        ]),
    '',
    '## Requests per second',
    '',
    ...table('req/s', 'rps'),
    '',
    '## p99 latency (ms)',
    '',
    ...table('p99', 'p99'),
    '',
    '## Server CPU per request (µs, user + system from /proc/<pid>/stat, all threads)',
    '',
    ...table('µs', 'cpuUs'),
    '',
    '## Database CPU per request (µs, the PostgreSQL backends of the bench database)',
    '',
    ...table('µs', 'databaseCpuUs'),
    '',
    '## Garbage-collection pauses per request (µs of the main thread, from --trace-gc)',
    '',
    ...table('µs', 'gcPauseUs', 1),
    '',
    '## CPU per request of the threads beside the main one (µs)',
    '',
    ...table('µs', 'otherThreadsCpuUs'),
    '',
    `## Peak RSS (MB; idle after start: ${columns.map(([key, label]) => `${label} ${fmt(idleRss[key])}`).join(', ')})`,
    '',
    ...table('MB', 'peakRss'),
    '',
    `Non-2xx or failed requests (timeouts included): ${failures(rows)}.`,
    'S5c: the references have no cursors, so their figure is the same depth by page number.',
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
      '| server | links | req/s | p50 ms | p99 ms | non-2xx | peak RSS MB |',
      '|---|---:|---:|---:|---:|---:|---:|',
      ...linksMemory.map(
        (row) =>
          `| ${Object.fromEntries(columns)[row.key]} | ${row.links.toLocaleString('en')} | ${fmt(row.rps, 1)} | ${fmt(row.p50)} | ${fmt(row.p99)} | ${row.errors} | ${fmt(row.peakRss)} |`,
      ),
    );
  }
  lines.push(...extra);
  return `${lines.join('\n')}\n`;
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
