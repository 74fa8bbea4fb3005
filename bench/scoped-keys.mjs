// `npm run bench:scoped-keys`: what a key limited to links costs against a full-access key, on
// BENCH_CLIENTS (1,000,000) clients over BENCH_LINKS (10,000) links, the scoped key holding
// BENCH_SCOPE_LINKS (100) links of ~100 clients each. Per request kind — a List Clients page, a
// cursor page, a client feed page, a Get Client (of a client both keys see) — the server's and
// the database's CPU per request, for the full key (twice: the A/A spread) and the scoped one,
// interleaved over BENCH_ROUNDS rounds; then, with no server, the database's floor for a scoped
// page: the cheapest statement that reads each of the key's links once, the scoped page's own
// statement and one over a table of each key's clients in list order, against the full-access
// page's statement. Writes bench/results/<stamp>-scoped-keys.md.
// Measurements only: nothing here passes or fails.
import { createRequire } from 'node:module';
import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { API_KEY, databaseCpu, databaseCpuSince, measure } from './measure.mjs';
import {
  build,
  createDatabase,
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
  scopeLinks: Number(process.env.BENCH_SCOPE_LINKS ?? 100),
  rounds: Number(process.env.BENCH_ROUNDS ?? 3),
  seconds: Number(process.env.BENCH_SECONDS ?? 5),
  connections: Number(process.env.BENCH_CONNECTIONS ?? 16),
};
const log = (message) => console.log(`[scoped-keys] ${message}`);
const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];
const pick = (items) => items[Math.floor(Math.random() * items.length)];

/**
 * Statements run straight on the database, no server, each with its parameters: the
 * full-access List Clients page (the bench's limit=100, and one row more that tells whether a
 * next page exists); reads that visit every link of the key once, from the index on (link_id,
 * created_at, id) as a scoped page must: one row of each (the least any per-link read costs),
 * then as many rows of each as the scoped page reads first (firstRowsPerLink); the scoped page's
 * own statement (keyLinksMerge); and, for comparison, the page read from a table that would keep
 * each key's clients in list order (KEY_ORDERED_CLIENTS, built here: nothing keeps it current).
 */
function floorStatements(keyId) {
  const require = createRequire(import.meta.url);
  const { firstRowsPerLink } = require(join(root, 'dist/api-keys/key-links-merge.js'));
  const { pageQuery } = require(join(root, 'dist/clients/clients.repository.js'));
  const firstRows = firstRowsPerLink(101, settings.scopeLinks);
  const eachLink = (columns, rows) => ({
    text: `SELECT c.* FROM api_key_links AS s
     CROSS JOIN LATERAL (SELECT ${columns} FROM clients AS c WHERE c.link_id = s.link_id
       ORDER BY created_at, id COLLATE "C" LIMIT ${rows}) AS c
     WHERE s.key_id = $1::uuid`,
    values: [keyId],
  });
  const page = (scope) => {
    const { text, params } = pageQuery({}, 100, { offset: 0 }, scope);
    return { text, values: params };
  };
  const full = page(undefined);
  return {
    'full-access page (101 rows of one index)': full,
    "one row of each of the key's links": eachLink('id, created_at', 1),
    [`${firstRows} rows of each of the key's links (the scoped page's first read)`]: eachLink(
      '*',
      firstRows,
    ),
    "the scoped page's statement": page({ keyId, links: settings.scopeLinks }),
    "the page from a table of each key's clients in list order": {
      text: full.text.replace(/\bFROM clients\b/, `FROM ${KEY_ORDERED_CLIENTS} WHERE key_id = $2`),
      values: [...full.values, keyId],
    },
  };
}

const KEY_ORDERED_CLIENTS = 'bench_key_ordered_clients';

/** Each key's clients with their key, indexed in list order: what no writer keeps today. */
const keyOrderedClientsSql = [
  `CREATE TABLE ${KEY_ORDERED_CLIENTS} AS SELECT s.key_id, c.*
   FROM api_key_links AS s JOIN clients AS c ON c.link_id = s.link_id`,
  `CREATE INDEX ON ${KEY_ORDERED_CLIENTS} (key_id, created_at, id COLLATE "C")
   INCLUDE (link_id, is_deleted, status, updated_at)`,
  `VACUUM ANALYZE ${KEY_ORDERED_CLIENTS}`,
];

/** The database CPU per execution of `statement` (prepared), run on `connections` connections. */
async function statementCpuUs(url, { text, values }) {
  const clients = Array.from({ length: settings.connections }, () => new pg.Client(url));
  await Promise.all(clients.map((client) => client.connect()));
  try {
    const before = await databaseCpu(url);
    const until = Date.now() + settings.seconds * 1000;
    let executions = 0;
    await Promise.all(
      clients.map(async (client) => {
        while (Date.now() < until) {
          await client.query({ name: 'floor', text, values });
          executions += 1;
        }
      }),
    );
    return (1000 * databaseCpuSince(before, await databaseCpu(url))) / executions;
  } finally {
    await Promise.all(clients.map((client) => client.end()));
  }
}

/** Each floor statement's CPU, interleaved over the rounds; medians. */
async function measureFloor(url, keyId) {
  await runSql(url, ...keyOrderedClientsSql);
  const statements = floorStatements(keyId);
  const runs = Object.fromEntries(Object.keys(statements).map((kind) => [kind, []]));
  for (let round = 0; round < settings.rounds; round++) {
    const kinds = Object.keys(statements);
    for (const kind of round % 2 ? kinds.reverse() : kinds) {
      runs[kind].push(await statementCpuUs(url, statements[kind]));
    }
  }
  return Object.fromEntries(Object.entries(runs).map(([kind, values]) => [kind, median(values)]));
}

/** A managed key of `scope` (links: a list, or none for every link), written as the CLI would. */
async function managedKey(client, name, links) {
  const require = createRequire(import.meta.url);
  const { generateApiKey, hashApiKey, displayPrefix } = require(
    join(root, 'dist/api-keys/api-key-format.js'),
  );
  const key = generateApiKey();
  const { rows } = await client.query(
    `INSERT INTO api_keys (name, prefix, key_hash, is_link_scoped)
     VALUES ($1, $2, decode($3, 'hex'), $4) RETURNING id`,
    [name, displayPrefix(key), hashApiKey(key), links !== undefined],
  );
  if (links) {
    await client.query(
      'INSERT INTO api_key_links (key_id, link_id) SELECT $1, unnest($2::text[])',
      [rows[0].id, links],
    );
  }
  return { key, id: rows[0].id };
}

async function main() {
  log(`settings ${JSON.stringify(settings)}`);
  if (!process.env.BENCH_SKIP_BUILD) build();
  const database = await createDatabase('scoped');
  const db = new pg.Client({ connectionString: database.url });
  let server;
  try {
    log(`loaded in ${await loadData(database.url, settings)} s`);
    await db.connect();
    // Links past the five hot ones, spread over the table.
    const step = Math.floor((settings.links - 10) / settings.scopeLinks);
    const scopeLinks = Array.from(
      { length: settings.scopeLinks },
      (_, n) => `link-${10 + n * step}`,
    );
    const keys = {
      full: await managedKey(db, 'full', undefined),
      scoped: await managedKey(db, 'scoped', scopeLinks),
    };
    const { rows } = await db.query('SELECT id FROM clients WHERE link_id = ANY($1) LIMIT 2000', [
      scopeLinks,
    ]);
    const visibleIds = rows.map(({ id }) => id);
    await db.query('ANALYZE api_key_links');
    const floor = await measureFloor(database.url, keys.scoped.id);
    log('floor statements done');

    server = startServer(
      'dist/main.js',
      { DATABASE_URL: database.url, API_KEYS: API_KEY, LOG_LEVEL: 'warn' },
      await freePort(),
      IMAGE_NODE_ARGS,
    );
    await server.ready;
    const auth = (key) => ({ authorization: `Bearer ${key}` });
    const cursorOf = async (key, path) => {
      const res = await fetch(`http://127.0.0.1:${server.port}${path}`, { headers: auth(key) });
      const body = await res.json();
      return encodeURIComponent(body.meta.nextCursor);
    };
    const cursors = {
      full: await cursorOf(keys.full.key, '/api/data/clients?limit=100'),
      scoped: await cursorOf(keys.scoped.key, '/api/data/clients?limit=100'),
    };
    const kinds = {
      'List Clients page 1': () => '/api/data/clients?limit=100',
      'cursor page': (who) => `/api/data/clients?limit=100&cursor=${cursors[who]}`,
      'client feed page (from the start)': () => '/api/data/changes/clients?limit=100',
      'Get Client': () => `/api/data/clients/${pick(visibleIds)}`,
    };
    const results = {};
    for (const [kind, path] of Object.entries(kinds)) {
      results[kind] = { full: [], again: [], scoped: [] };
      for (let round = 0; round < settings.rounds; round++) {
        const order = round % 2 ? ['scoped', 'again', 'full'] : ['full', 'scoped', 'again'];
        for (const who of order) {
          const key = who === 'scoped' ? keys.scoped.key : keys.full.key;
          const run = await measure(
            server,
            database.url,
            () => path(who === 'scoped' ? 'scoped' : 'full'),
            {
              connections: settings.connections,
              seconds: settings.seconds,
              headers: auth(key),
            },
          );
          if (run.errors > 0) log(`${kind} ${who}: ${run.errors} errors`);
          results[kind][who].push(run);
        }
      }
      log(`${kind} done`);
    }
    const report = render(results, floor);
    console.log(`\n${report}`);
    const stamp = new Date().toISOString().slice(0, 16).replace(/[:T]/g, '-');
    writeFileSync(join(root, 'bench/results', `${stamp}-scoped-keys.md`), report);
  } finally {
    await db.end().catch(() => undefined);
    if (server) {
      server.child.kill('SIGTERM');
      await server.exited;
    }
    await database.drop();
  }
}

function render(results, floor) {
  const fullPage = Object.values(floor)[0];
  const floorRows = Object.entries(floor).map(
    ([kind, us]) => `| ${kind} | ${us.toFixed(0)} µs | ${(us / fullPage).toFixed(2)}× |`,
  );
  const cell = (runs, field) => median(runs.map((run) => run[field]));
  const rows = Object.entries(results).map(([kind, { full, again, scoped }]) => {
    const server = [cell(full, 'cpuUs'), cell(again, 'cpuUs'), cell(scoped, 'cpuUs')];
    const database = [
      cell(full, 'databaseCpuUs'),
      cell(again, 'databaseCpuUs'),
      cell(scoped, 'databaseCpuUs'),
    ];
    const spread = (a, b) => `${Math.round((Math.abs(a - b) / Math.min(a, b)) * 100)} %`;
    return `| ${kind} | ${server[0].toFixed(0)} / ${server[2].toFixed(0)} µs | **${(server[2] / server[0]).toFixed(2)}×** (A/A ${spread(server[0], server[1])}) | ${database[0].toFixed(0)} / ${database[2].toFixed(0)} µs | **${(database[2] / database[0]).toFixed(2)}×** (A/A ${spread(database[0], database[1])}) | ${cell(full, 'rps').toFixed(0)} / ${cell(scoped, 'rps').toFixed(0)} |`;
  });
  return [
    `# A key limited to ${settings.scopeLinks} links against a full-access key — ${new Date().toISOString()}`,
    '',
    `${settings.clients.toLocaleString('en')} clients over ${settings.links.toLocaleString('en')} links; the scoped key holds ${settings.scopeLinks} links of ~${Math.round(settings.clients / settings.links)} clients each.`,
    `One server (the image's Node options), ${settings.connections} connections, ${settings.seconds} s a run, ${settings.rounds} rounds, full / scoped / full again interleaved; medians.`,
    `Load average at the end ${loadavg()
      .map((value) => value.toFixed(2))
      .join(' ')}.`,
    '',
    '| request | server CPU per request, full / scoped | scoped ÷ full | database CPU per request, full / scoped | scoped ÷ full | req/s full / scoped |',
    '|---|---:|---:|---:|---:|---:|',
    ...rows,
    '',
    `The database's floor for a scoped page: statements alone on ${settings.connections} connections, ${settings.seconds} s each, ${settings.rounds} rounds, medians.`,
    '',
    '| statement | database CPU per statement | ÷ the full-access page |',
    '|---|---:|---:|',
    ...floorRows,
    '',
  ].join('\n');
}

await main();
