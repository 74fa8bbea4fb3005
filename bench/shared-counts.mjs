// `node bench/shared-counts.mjs`: the database CPU that List Clients totals cost with one API
// process and with four on one database, the four without and with REDIS_URL (totals shared),
// under an S2/S4 mix (bench/run.mjs). Writes bench/results/<stamp>-shared-counts.md.
// Measurements only: nothing here passes or fails on timing.
import { randomBytes } from 'node:crypto';
import { createRequire } from 'node:module';
import { writeFileSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { API_KEY, cpuMs, databaseCpu, databaseCpuSince, load } from './measure.mjs';
import {
  build,
  createDatabase,
  freePort,
  loadData,
  root,
  runSql,
  startServer,
} from './support.mjs';

const settings = {
  clients: Number(process.env.BENCH_CLIENTS ?? 1_000_000),
  links: Number(process.env.BENCH_LINKS ?? 10_000),
  seconds: Number(process.env.BENCH_SECONDS ?? 20),
  connections: Number(process.env.BENCH_CONNECTIONS ?? 32),
  redisUrl: process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379',
  ttlMs: 2000,
};
const log = (message) => console.log(`[shared-counts] ${message}`);

// S2 (no filter, page 1) and S4 (two filters, a random page of 1-50), in turn: two filter
// combinations, each page full, so every request needs its list's total.
let turn = 0;
const mix = () =>
  turn++ % 2 === 0
    ? '/api/data/clients'
    : `/api/data/clients?status=connected&isDeleted=false&page=${1 + Math.floor(Math.random() * 50)}`;

const configurations = [
  { name: '1 process', processes: 1 },
  { name: '4 processes', processes: 4 },
  { name: '4 processes, REDIS_URL', processes: 4, redis: true },
  { name: '1 process, REDIS_URL', processes: 1, redis: true },
];

/**
 * Database CPU ms of one count of each filter combination of the mix, the app's own SQL run
 * alone, on one backend (the mean of `times` runs).
 */
async function cpuPerCount(databaseUrl, times = 5) {
  const { countQuery } = createRequire(import.meta.url)(
    join(root, 'dist/clients/clients.repository.js'),
  );
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query('SELECT pg_backend_pid() AS pid');
    const perFilter = [];
    for (const filters of [{}, { status: 'connected', isDeleted: false }]) {
      const { text, params } = countQuery(filters);
      await client.query(text, params);
      const before = cpuMs(rows[0].pid);
      for (let i = 0; i < times; i++) await client.query(text, params);
      perFilter.push((cpuMs(rows[0].pid) - before) / times);
    }
    return perFilter;
  } finally {
    await client.end();
  }
}

async function startProcesses(databaseUrl, { processes, redis }, ttlMs) {
  const prefix = `bench-${randomBytes(4).toString('hex')}:`;
  const servers = [];
  for (let i = 0; i < processes; i++) {
    const metricsPort = await freePort();
    const env = {
      DATABASE_URL: databaseUrl,
      API_KEYS: API_KEY,
      COUNT_CACHE_TTL_MS: String(ttlMs),
      METRICS_PORT: String(metricsPort),
      LOG_LEVEL: 'warn',
      ...(redis && { REDIS_URL: settings.redisUrl, REDIS_KEY_PREFIX: prefix }),
    };
    const server = { ...startServer('dist/main.js', env, await freePort()), metricsPort };
    // Each time a process's Redis breaker opened (it then counts alone for a second).
    server.outages = 0;
    server.child.stdout.on('data', (chunk) => {
      server.outages += chunk.toString().split('Redis unavailable').length - 1;
    });
    servers.push(server);
  }
  await Promise.all(servers.map((server) => server.ready));
  return servers;
}

async function countsRun(servers) {
  let total = 0;
  for (const { metricsPort } of servers) {
    const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
    total += Number(/^list_clients_counts_total (\d+)/m.exec(text)?.[1] ?? 0);
  }
  return total;
}

const outages = (servers) => servers.reduce((sum, server) => sum + server.outages, 0);

/** The mix on every process at once (the connections split between them), measured. */
async function measureMix(databaseUrl, servers, seconds) {
  const connections = Math.max(1, Math.round(settings.connections / servers.length));
  const [countsBefore, databaseBefore] = [await countsRun(servers), await databaseCpu(databaseUrl)];
  const outagesBefore = outages(servers);
  const runs = await Promise.all(
    servers.map((server) => load(server.port, mix, { connections, seconds })),
  );
  const databaseMs = databaseCpuSince(databaseBefore, await databaseCpu(databaseUrl));
  return {
    requests: runs.reduce((sum, run) => sum + run.requests, 0),
    errors: runs.reduce((sum, run) => sum + run.errors, 0),
    counts: (await countsRun(servers)) - countsBefore,
    outages: outages(servers) - outagesBefore,
    databaseMs,
    seconds,
  };
}

async function run(databaseUrl, configuration, ttlMs) {
  const servers = await startProcesses(databaseUrl, configuration, ttlMs);
  try {
    await measureMix(databaseUrl, servers, 5); // warm-up, unmeasured
    return await measureMix(databaseUrl, servers, settings.seconds);
  } finally {
    for (const server of servers) server.child.kill('SIGTERM');
    await Promise.all(servers.map((server) => server.exited));
  }
}

async function main() {
  log(`settings ${JSON.stringify(settings)}`);
  build();
  const database = await createDatabase('bench');
  try {
    log(`loading ${settings.clients} clients`);
    await loadData(database.url, settings);
    // Parallel workers end with their query, before a snapshot of the backends could see
    // their CPU: serial counts keep all of it in the backends measured.
    await runSql(
      database.url,
      `ALTER DATABASE ${new URL(database.url).pathname.slice(1)} SET max_parallel_workers_per_gather = 0`,
    );
    const perCount = await cpuPerCount(database.url);
    const msPerCount = perCount.reduce((a, b) => a + b) / perCount.length;
    log(`database CPU per count: ${perCount.map((ms) => ms.toFixed(1)).join(' and ')} ms`);
    const rows = [];
    for (const configuration of configurations) {
      log(configuration.name);
      const result = await run(database.url, configuration, settings.ttlMs);
      rows.push({
        ...configuration,
        ...result,
        countingMsPerSecond: (result.counts * msPerCount) / result.seconds,
      });
      log(JSON.stringify(rows.at(-1)));
    }
    const report = render(rows, perCount);
    console.log(`\n${report}`);
    const stamp = new Date().toISOString().slice(0, 16).replace(/[:T]/g, '-');
    writeFileSync(join(root, 'bench/results', `${stamp}-shared-counts.md`), report);
  } finally {
    await database.drop();
  }
}

function render(rows, perCount) {
  const one = rows[0].countingMsPerSecond;
  const fixed = (value, digits = 0) => value.toFixed(digits);
  return [
    `# Shared counts — ${new Date().toISOString()}`,
    '',
    `Data: ${settings.clients.toLocaleString('en')} clients over ${settings.links.toLocaleString('en')} links (bench/run.mjs).`,
    `Load: S2 and S4 in turn, ${settings.connections} connections split between the processes, ${settings.seconds} s per`,
    `configuration after 5 s of warm-up; COUNT_CACHE_TTL_MS=${settings.ttlMs}; ${cpus().length} cores.`,
    `Counts: list_clients_counts_total summed over the processes. Counting: counts × the database`,
    `CPU of one count run alone (S2's ${fixed(perCount[0], 1)} ms, S4's ${fixed(perCount[1], 1)} ms; serial, max_parallel_workers_per_gather = 0).`,
    `DB CPU: every backend of the database (/proc), reads and counts. Redis outages: breaker`,
    `openings the processes logged (each then counts alone for a second).`,
    '',
    '| configuration | req/s | errors | Redis outages | counts | counts/s | DB CPU ms/s | counting ms/s | counting vs 1 process |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...rows.map(
      (row) =>
        `| ${row.name} | ${fixed(row.requests / row.seconds)} | ${row.errors} | ${row.redis ? row.outages : '–'} | ${row.counts} | ${fixed(row.counts / row.seconds, 2)} | ${fixed(row.databaseMs / row.seconds)} | ${fixed(row.countingMsPerSecond)} | ${fixed(row.countingMsPerSecond / one, 2)}× |`,
    ),
    '',
  ].join('\n');
}

await main();
