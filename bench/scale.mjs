// `npm run bench:scale`: what ten times the data costs. Our server alone (the image's Node
// options), on two data sets loaded one after the other, BENCH_SCALES (default
// `1000000/10000,10000000/100000`: clients/links), each scenario at each size; per scenario the
// server CPU and database CPU per request, req/s and peak RSS, and their ratio largest/smallest.
// Counts are timed apart, per row (EXPLAIN ANALYZE). Writes bench/results/<stamp>-scale.md.
// Measurements only: nothing here passes or fails.
import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { lastPosition } from './feeds.mjs';
import { API_KEY, measure } from './measure.mjs';
import {
  build,
  createDatabase,
  freePort,
  loadData,
  root,
  startServer,
  IMAGE_NODE_ARGS,
} from './support.mjs';

const settings = {
  scales: (process.env.BENCH_SCALES ?? '1000000/10000,10000000/100000').split(',').map((scale) => {
    const [clients, links] = scale.split('/').map(Number);
    return { clients, links };
  }),
  rounds: Number(process.env.BENCH_ROUNDS ?? 3),
  seconds: Number(process.env.BENCH_SECONDS ?? 5),
  connections: Number(process.env.BENCH_CONNECTIONS ?? 32),
};
const CURSOR_SECRET = 'bench-cursor-secret-0123456789abcdef';
const log = (message) => console.log(`[scale] ${message}`);
const randomInt = (max) => 1 + Math.floor(Math.random() * max);
const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];

async function withClient(url, use) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}

/**
 * Signed cursors of the clients feed at `count` random rows and at its end (caught up), made
 * with the server's CURSOR_SECRET as the server would make them.
 */
async function feedCursors(url, clients, count) {
  const { CursorCodec } = await import('../dist/query/signed-cursor.js');
  const { clientChangesScope } = await import('../dist/changes/dto/changes.query.js');
  const { isoMicros } = await import('../dist/database/printed-timestamp.js');
  const codec = new CursorCodec({ current: CURSOR_SECRET });
  const scope = clientChangesScope({});
  const cursorOf = (position) => encodeURIComponent(codec.encode(position, scope));
  const { rows: random } = await withClient(url, (client) =>
    client.query(
      `SELECT to_json(updated_at AT TIME ZONE 'UTC')::text AS t, id FROM clients WHERE id = ANY($1)`,
      [Array.from({ length: count }, () => `client-${randomInt(clients)}`)],
    ),
  );
  return {
    pages: random.map(({ t, id }) => cursorOf({ timestamp: isoMicros(t), id })),
    end: cursorOf(await lastPosition(url)),
  };
}

/** Milliseconds per million rows of the counts List Clients runs (EXPLAIN ANALYZE, median of 5). */
async function countCost(url, clients) {
  const counts = {
    'count, no filter': 'SELECT count(*) FROM clients',
    'count, status=connected&isDeleted=false': `SELECT count(*) FROM clients WHERE status = 'connected' AND is_deleted = false`,
  };
  return withClient(url, async (client) => {
    const result = {};
    for (const [name, text] of Object.entries(counts)) {
      const times = [];
      for (let i = 0; i < 5; i++) {
        const { rows } = await client.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${text}`);
        times.push(rows[0]['QUERY PLAN'][0]['Execution Time']);
      }
      result[name] = { ms: median(times), msPerMillionRows: (median(times) * 1e6) / clients };
    }
    return result;
  });
}

/**
 * The database's buffer hits and reads (a read: a page not in shared_buffers, copied from the
 * OS cache or the disk) so far; backends report them within a second of their last query.
 */
async function blocks(url) {
  await new Promise((resolve) => setTimeout(resolve, 1500));
  return withClient(url, async (client) => {
    const { rows } = await client.query(
      `SELECT blks_hit::float8 AS hit, blks_read::float8 AS read FROM pg_stat_database
       WHERE datname = current_database()`,
    );
    return rows[0];
  });
}

/** The database's size, shared_buffers, and the depth of the clients' B-trees (pageinspect). */
async function sizes(url) {
  return withClient(url, async (client) => {
    const { rows } = await client.query(
      `SELECT pg_size_pretty(pg_database_size(current_database())) AS "databaseSize",
              current_setting('shared_buffers') AS "sharedBuffers"`,
    );
    let depths = {};
    try {
      await client.query('CREATE EXTENSION IF NOT EXISTS pageinspect');
      const { rows: indexes } = await client.query(
        `SELECT c.relname AS name, (bt_metap(c.relname)).level + 1 AS depth
         FROM pg_index i JOIN pg_class c ON c.oid = i.indexrelid
         WHERE i.indrelid = 'clients'::regclass ORDER BY 1`,
      );
      depths = Object.fromEntries(indexes.map(({ name, depth }) => [name, depth]));
    } catch (error) {
      log(`B-tree depths not read: ${error.message}`);
    }
    return { ...rows[0], depths };
  });
}

function scenariosFor({ clients, links }, cursors) {
  const deepPage = Math.min(5000, Math.floor(clients / 100) - 1);
  return [
    ['S1 get client by random id', () => `/api/data/clients/client-${randomInt(clients)}`],
    ['S2 list clients, no filter, page 1', () => '/api/data/clients'],
    ['S3 list by a random linkId', () => `/api/data/clients?linkId=link-${randomInt(links)}`],
    [
      'S4 status=connected&isDeleted=false, random page 1-50',
      () => `/api/data/clients?status=connected&isDeleted=false&page=${randomInt(50)}`,
    ],
    [`S5 page=${deepPage}`, () => `/api/data/clients?page=${deepPage}`],
    [
      'S5c a page by cursor at a random position',
      () =>
        `/api/data/clients?cursor=${cursors.listPages[randomInt(cursors.listPages.length) - 1]}`,
    ],
    ['S6 list links (per link below)', () => '/api/data/links'],
    [
      'F1 feed page of 1000 at a random position',
      () =>
        `/api/data/changes/clients?limit=1000&cursor=${cursors.feed.pages[randomInt(cursors.feed.pages.length) - 1]}`,
    ],
    ['F2 caught-up feed poll', () => `/api/data/changes/clients?cursor=${cursors.feed.end}`],
  ];
}

/** List cursors at random depths, as the server hands them out (page by number, then its cursor). */
async function listCursors(port, clients, count) {
  const cursors = [];
  for (let i = 0; i < count; i++) {
    const page = randomInt(Math.min(5000, Math.floor(clients / 100) - 1));
    const res = await fetch(`http://127.0.0.1:${port}/api/data/clients?page=${page}`, {
      headers: { authorization: `Bearer ${API_KEY}` },
    });
    cursors.push(encodeURIComponent((await res.json()).meta.nextCursor));
  }
  return cursors;
}

async function measureScale(scale) {
  const database = await createDatabase('bench_scale');
  let server;
  try {
    log(`loading ${scale.clients} clients over ${scale.links} links`);
    const loadSeconds = await loadData(database.url, scale);
    log(`loaded in ${loadSeconds.toFixed(1)} s`);
    server = startServer(
      'dist/main.js',
      { DATABASE_URL: database.url, API_KEYS: API_KEY, CURSOR_SECRET, LOG_LEVEL: 'warn' },
      await freePort(),
      IMAGE_NODE_ARGS,
    );
    await server.ready;
    const cursors = {
      feed: await feedCursors(database.url, scale.clients, 200),
      listPages: await listCursors(server.port, scale.clients, 50),
    };
    const options = { connections: settings.connections, seconds: settings.seconds };
    const results = {};
    for (const [name, paths] of scenariosFor(scale, cursors)) {
      log(`${name}: warming up`);
      await measure(server, database.url, paths, { ...options, seconds: 2 });
      const runs = [];
      const blocksBefore = await blocks(database.url);
      for (let round = 0; round < settings.rounds; round++)
        runs.push(await measure(server, database.url, paths, options));
      const blocksAfter = await blocks(database.url);
      const requests = runs.reduce((sum, run) => sum + run.requests, 0);
      const pick = (field) => median(runs.map((run) => run[field]));
      results[name.split(' ')[0]] = {
        name,
        rps: pick('rps'),
        cpuUs: pick('cpuUs'),
        databaseCpuUs: pick('databaseCpuUs'),
        p99: pick('p99'),
        errors: runs.reduce((sum, run) => sum + run.errors, 0),
        peakRss: Math.max(...runs.map((run) => run.peakRss)),
        blocksHit: (blocksAfter.hit - blocksBefore.hit) / requests,
        blocksRead: (blocksAfter.read - blocksBefore.read) / requests,
      };
      log(`${name}: ${JSON.stringify(results[name.split(' ')[0]])}`);
    }
    const counts = await countCost(database.url, scale.clients);
    return { scale, loadSeconds, results, counts, ...(await sizes(database.url)) };
  } finally {
    server?.child.kill('SIGTERM');
    await server?.exited;
    await database.drop();
  }
}

const fmt = (value, digits = 0) =>
  value === undefined || Number.isNaN(value)
    ? '–'
    : value.toLocaleString('en', { maximumFractionDigits: digits, minimumFractionDigits: digits });
const ratio = (large, small) => (small > 0 ? `${(large / small).toFixed(2)}×` : '–');
/** Two cells: a figure at the small and the large size, and their ratio. */
const change = (small, large, digits = 0) =>
  `${fmt(small, digits)} → ${fmt(large, digits)} | ${ratio(large, small)}`;

function report(measured) {
  const [small, large] = [measured[0], measured[measured.length - 1]];
  const sizeOf = ({ scale }) =>
    `${scale.clients.toLocaleString('en')} clients / ${scale.links.toLocaleString('en')} links`;
  const lines = [
    `# Ten times the data — ${new Date().toISOString()}`,
    '',
    `Our server alone (${process.env.BENCH_NODE ? 'BENCH_NODE' : 'node'} ${IMAGE_NODE_ARGS.join(' ')}, LOG_LEVEL=warn), ` +
      `${settings.connections} connections, ${settings.rounds} rounds of ${settings.seconds} s per scenario after 2 s of warm-up; ` +
      `each figure the median of its rounds (peak RSS: the highest). Data sets loaded one after the other ` +
      `(bench/support.mjs loadData): ${measured.map((m) => `${sizeOf(m)} in ${fmt(m.loadSeconds, 1)} s`).join('; ')}. ` +
      `Load average at the end: ${loadavg()
        .map((v) => v.toFixed(2))
        .join(' ')}.`,
    '',
    `Ratios: ${sizeOf(large)} over ${sizeOf(small)}. CPU figures are per request (µs); S6 also per link.`,
    '',
    '| scenario | server CPU µs/req | ratio | DB CPU µs/req | ratio | req/s | ratio | peak RSS MB | ratio | p99 ms | errors | buffers hit/read per req |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ];
  for (const [key, a] of Object.entries(small.results)) {
    const b = large.results[key];
    lines.push(
      `| ${a.name} | ${change(a.cpuUs, b.cpuUs)} | ${change(a.databaseCpuUs, b.databaseCpuUs)} | ` +
        `${change(a.rps, b.rps)} | ${change(a.peakRss, b.peakRss)} | ` +
        `${a.p99} → ${b.p99} | ${a.errors + b.errors} | ` +
        `${fmt(a.blocksHit, 1)}/${fmt(a.blocksRead, 1)} → ${fmt(b.blocksHit, 1)}/${fmt(b.blocksRead, 1)} |`,
    );
  }
  const perLink = (field) => {
    const [a, b] = [small, large].map(({ results, scale }) => results.S6[field] / scale.links);
    return `${fmt(a, 3)} → ${fmt(b, 3)} µs (${ratio(b, a)})`;
  };
  lines.push(
    '',
    `S6 per link: server CPU ${perLink('cpuUs')}, database CPU ${perLink('databaseCpuUs')}.`,
    '',
    '| count (EXPLAIN ANALYZE, median of 5) | ms | ms per million rows | ratio per row |',
    '|---|---:|---:|---:|',
  );
  for (const [name, a] of Object.entries(small.counts)) {
    const b = large.counts[name];
    lines.push(
      `| ${name} | ${fmt(a.ms, 1)} → ${fmt(b.ms, 1)} | ${change(a.msPerMillionRows, b.msPerMillionRows, 1)} |`,
    );
  }
  lines.push(
    '',
    "| data set | database size | shared_buffers | B-tree depths of the clients' indexes |",
    '|---|---:|---:|---|',
  );
  for (const m of measured)
    lines.push(
      `| ${sizeOf(m)} | ${m.databaseSize} | ${m.sharedBuffers} | ${Object.entries(m.depths)
        .map(([name, depth]) => `${name} ${depth}`)
        .join(', ')} |`,
    );
  return `${lines.join('\n')}\n`;
}

async function main() {
  log(`settings ${JSON.stringify(settings)}`);
  if (!process.env.BENCH_SKIP_BUILD) {
    log('building the production server (npm run build)');
    build();
  }
  const measured = [];
  for (const scale of settings.scales) measured.push(await measureScale(scale));
  const text = report(measured);
  console.log(`\n${text}`);
  const stamp = new Date().toISOString().slice(0, 16).replace(/[:T]/g, '-');
  const file = join(root, 'bench/results', `${stamp}-scale.md`);
  writeFileSync(file, text);
  log(`written to ${file}`);
}

await main();
