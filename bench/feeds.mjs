// Change feed scenarios (docs/performance.md): a full walk of the clients by feed, then
// caught-up polling. Called by bench/run.mjs with its running server; or on its own:
// `BENCH_CLIENTS=200000 node bench/feeds.mjs` builds, loads, serves and reports.
import autocannon from 'autocannon';
import pg from 'pg';
import { API_KEY, peakOf, rssMb } from './measure.mjs';
import { build, createDatabase, freePort, runSql, startServer } from './support.mjs';

const PAGE = 1000;

/** Follows the client feed from its start until caught up: rows/s end to end, peak RSS. */
async function fullWalk(base, headers, pid) {
  const peak = peakOf(rssMb, pid);
  const started = performance.now();
  let rows = 0;
  let cursor = '';
  for (let more = true; more;) {
    const res = await fetch(`${base}/api/data/changes/clients?limit=${PAGE}${cursor}`, { headers });
    const body = await res.json();
    if (res.status !== 200) throw new Error(`feed answered ${res.status}`);
    rows += body.data.length;
    cursor = `&cursor=${encodeURIComponent(body.meta.nextCursor)}`;
    more = body.meta.hasMore;
  }
  const seconds = (performance.now() - started) / 1000;
  return { rows, seconds, rowsPerSecond: rows / seconds, peakRss: peak(), cursor };
}

/** Database time of a caught-up poll: its two statements, from EXPLAIN ANALYZE (median of 21). */
async function pollDatabaseMs(databaseUrl, cursorPosition) {
  const { SAFE_POINT_QUERY, changesQuery } = await import('../dist/changes/changes.repository.js');
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const median = (values) => values.sort((a, b) => a - b)[values.length >> 1];
  const analyse = async (text, params) => {
    const { rows } = await client.query(`EXPLAIN (ANALYZE, FORMAT JSON) ${text}`, params);
    return rows[0]['QUERY PLAN'][0]['Execution Time'];
  };
  try {
    const safe = [];
    const page = [];
    for (let i = 0; i < 21; i++) {
      safe.push(await analyse(SAFE_POINT_QUERY, []));
      const { text, params } = changesQuery('clients', cursorPosition, 'infinity', 100);
      page.push(await analyse(text, params));
    }
    return { safePointMs: median(safe), pageMs: median(page) };
  } finally {
    await client.end();
  }
}

/** The feed position of the newest client, as its cursor holds it. */
export async function lastPosition(databaseUrl) {
  const { isoMicros } = await import('../dist/database/printed-timestamp.js');
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query(
      `SELECT to_json(updated_at AT TIME ZONE 'UTC')::text AS t, id FROM clients
       ORDER BY updated_at DESC, id COLLATE "C" DESC LIMIT 1`,
    );
    return { timestamp: isoMicros(rows[0].t), id: rows[0].id };
  } finally {
    await client.end();
  }
}

/** The feed scenarios against a running server; returns a Markdown section for the report. */
export async function feedScenarios({
  port,
  pid,
  apiKey,
  databaseUrl,
  seconds = 10,
  connections = 32,
  log = console.log,
}) {
  const base = `http://127.0.0.1:${port}`;
  const headers = { authorization: `Bearer ${apiKey}` };
  log('feeds: full walk of the clients');
  const walk = await fullWalk(base, headers, pid);
  const position = await lastPosition(databaseUrl);
  log('feeds: caught-up polling');
  const poll = await autocannon({
    url: `${base}/api/data/changes/clients?limit=100${walk.cursor}`,
    connections,
    duration: seconds,
    headers,
  });
  const database = await pollDatabaseMs(databaseUrl, position);
  return [
    '### Change feeds',
    '',
    '| scenario | figure |',
    '|---|---|',
    `| full walk of the clients by feed (limit ${PAGE}) | ${walk.rows} rows in ${walk.seconds.toFixed(1)} s: ${Math.round(walk.rowsPerSecond)} rows/s, server peak RSS ${walk.peakRss.toFixed(0)} MB |`,
    `| caught-up polling, ${connections} connections, ${seconds} s | ${Math.round(poll.requests.average)} req/s, p50 ${poll.latency.p50} ms, p99 ${poll.latency.p99} ms, non-2xx ${poll.non2xx + poll.errors} |`,
    `| database time of a caught-up poll (EXPLAIN ANALYZE, median) | safe point ${database.safePointMs.toFixed(3)} ms + page ${database.pageMs.toFixed(3)} ms |`,
    '',
  ].join('\n');
}

async function standalone() {
  const clients = Number(process.env.BENCH_CLIENTS ?? 200_000);
  build();
  const database = await createDatabase('bench_feeds');
  let server;
  try {
    await runSql(
      database.url,
      `INSERT INTO links (id) SELECT 'link-' || i FROM generate_series(1, 1000) AS i`,
      `INSERT INTO clients (id, link_id, is_deleted, status)
       SELECT 'client-' || i, 'link-' || (1 + i % 1000), i % 10 = 3,
              CASE WHEN i % 20 < 12 THEN 'connected' ELSE 'new' END
       FROM generate_series(1, ${clients}) AS i`,
      'VACUUM ANALYZE',
    );
    const port = await freePort();
    server = startServer('dist/main.js', { DATABASE_URL: database.url, API_KEYS: API_KEY }, port);
    await server.ready;
    const seconds = Number(process.env.BENCH_SECONDS ?? 10);
    const report = await feedScenarios({
      port,
      pid: server.child.pid,
      apiKey: API_KEY,
      databaseUrl: database.url,
      seconds,
    });
    console.log(`\n${clients} clients\n\n${report}`);
  } finally {
    server?.child.kill('SIGTERM');
    await server?.exited;
    await database.drop();
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await standalone();
