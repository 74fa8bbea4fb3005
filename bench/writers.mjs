// `node bench/writers.mjs` (npm run bench:writers): what the API costs the systems that write
// links and clients. pgbench runs BENCH_WRITERS (16) connections of one-row autocommit UPDATEs
// of random clients for BENCH_SECONDS each, against: the tables alone (the schema a writer
// would have without us), the same with the API's migrations applied, the migrations plus the
// previous release's NOTIFY trigger, and the migrations with the API serving BENCH_CONSUMERS
// long polls (10 per link over 100 links). Each configuration runs BENCH_ROUNDS times,
// interleaved, on 200,000 links and 1,000,000 clients. Measured: commits per second and the
// commit latency p50/p99 (pgbench's per-transaction log), and the CPU of PostgreSQL and of the
// API. Writes bench/results/<stamp>-writers.md. Measurements only: nothing here passes or fails.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { API_KEY, cpuMs } from './measure.mjs';
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
  writers: Number(process.env.BENCH_WRITERS ?? 16),
  seconds: Number(process.env.BENCH_SECONDS ?? 20),
  rounds: Number(process.env.BENCH_ROUNDS ?? 2),
  consumers: Number(process.env.BENCH_CONSUMERS ?? 1000),
  links: Number(process.env.BENCH_LINKS ?? 200_000),
  clients: Number(process.env.BENCH_CLIENTS ?? 1_000_000),
};
const TICK_MS = 1000 / Number(execFileSync('getconf', ['CLK_TCK']).toString());
const log = (message) => console.log(`[writers] ${message}`);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const UPDATE_SCRIPT = `\\set n random(1, ${settings.clients})
UPDATE clients SET status = CASE status WHEN 'new' THEN 'connected' ELSE 'new' END WHERE id = 'client-' || :n;
`;

// The previous release's trigger (migration NotifyFeedChanges), for comparison.
const NOTIFY_TRIGGER = [
  `CREATE OR REPLACE FUNCTION notify_feed_change() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN PERFORM pg_notify('feed_changes', TG_TABLE_NAME); RETURN NULL; END $$`,
  `CREATE OR REPLACE TRIGGER clients_notify_feed_change AFTER INSERT OR UPDATE ON clients
   FOR EACH STATEMENT EXECUTE FUNCTION notify_feed_change()`,
];
const NO_NOTIFY_TRIGGER = [`DROP TRIGGER clients_notify_feed_change ON clients`];
// The migrations' indexes alone: what the stamping trigger costs, apart from them.
const NO_STAMPING = [`ALTER TABLE clients DISABLE TRIGGER clients_stamp_updated_at`];
const STAMPING = [`ALTER TABLE clients ENABLE TRIGGER clients_stamp_updated_at`];

/** The contract's tables and nothing else: what the writers would have without the API. */
const BARE_SCHEMA = [
  `DROP TABLE IF EXISTS clients, links, api_keys, migrations CASCADE`,
  `CREATE TABLE links (id text PRIMARY KEY, created_at timestamptz NOT NULL DEFAULT now(),
     updated_at timestamptz NOT NULL DEFAULT now())`,
  `CREATE TABLE clients (id text PRIMARY KEY, link_id text NOT NULL REFERENCES links (id),
     is_deleted boolean NOT NULL DEFAULT false, status text NOT NULL,
     created_at timestamptz NOT NULL DEFAULT now(), updated_at timestamptz NOT NULL DEFAULT now())`,
];

const percentile = (sorted, p) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];

/** pgbench's run against `url`: commits per second and latency percentiles, in ms. */
function pgbench(url) {
  const dir = mkdtempSync(join(tmpdir(), 'writers-'));
  const script = join(dir, 'update.sql');
  writeFileSync(script, UPDATE_SCRIPT);
  try {
    execFileSync(
      'pgbench',
      ['-n', '-c', String(settings.writers), '-j', '2', '-T', String(settings.seconds)].concat([
        '-f',
        script,
        '-l',
        '--log-prefix',
        join(dir, 'tx'),
        url,
      ]),
      { stdio: 'ignore' },
    );
    // Each line: client transaction latency_us script epoch_s epoch_us.
    const latencies = readdirSync(dir)
      .filter((name) => name.startsWith('tx'))
      .flatMap((name) => readFileSync(join(dir, name), 'utf8').trim().split('\n'))
      .map((line) => Number(line.split(' ')[2]) / 1000)
      .sort((a, b) => a - b);
    return {
      commitsPerSecond: latencies.length / settings.seconds,
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
    };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const agent = new Agent({ keepAlive: true, maxSockets: Infinity });

function poll(port, path) {
  return new Promise((resolve) => {
    const options = { port, agent, path, headers: { authorization: `Bearer ${API_KEY}` } };
    request(options, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode, text }));
    })
      .on('error', () => resolve({ status: 0, text: '' }))
      .end();
  });
}

/** Consumers, 10 per link over links 1–100, each long polling its link's clients. */
function startConsumers(port) {
  const state = { stopped: false, answers: 0, refusals: 0 };
  const consume = async (n) => {
    const linkId = `link-${1 + (n % 100)}`;
    let cursor = '';
    while (!state.stopped) {
      const query = `linkId=${linkId}&limit=1000&wait=25${cursor && `&cursor=${encodeURIComponent(cursor)}`}`;
      const { status, text } = await poll(port, `/api/data/changes/clients?${query}`);
      if (status === 200) {
        cursor = JSON.parse(text).meta.nextCursor;
        state.answers++;
      } else {
        state.refusals++;
        await sleep(1000);
      }
    }
  };
  state.done = Promise.all(Array.from({ length: settings.consumers }, (_, n) => consume(n)));
  return state;
}

/**
 * CPU milliseconds of the whole PostgreSQL instance: the postmaster, its live processes and
 * those it has reaped (pgbench's backends end with its run). Needs PostgreSQL on this machine.
 */
async function postgresCpuMs(url) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const { rows } = await client.query('SHOW data_directory').finally(() => client.end());
  const dataDirectory = rows[0].data_directory;
  const postmaster = Number(
    readFileSync(join(dataDirectory, 'postmaster.pid'), 'utf8').split('\n')[0],
  );
  const stat = (pid) => {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return text
      .slice(text.lastIndexOf(')') + 2)
      .split(' ')
      .map(Number);
  };
  // Fields after the name: ppid is 1, utime 11, stime 12, cutime 13, cstime 14.
  const own = stat(postmaster);
  let ticks = own[11] + own[12] + own[13] + own[14];
  for (const name of readdirSync('/proc').filter((entry) => /^\d+$/.test(entry))) {
    try {
      const fields = stat(name);
      if (fields[1] === postmaster) ticks += fields[11] + fields[12];
    } catch {
      // Exited while read.
    }
  }
  return ticks * TICK_MS;
}

/** One measured run: pgbench, with the CPU of PostgreSQL (and of the API, when one runs). */
async function measure(url, apiPid) {
  const database = await postgresCpuMs(url);
  const api = apiPid && cpuMs(apiPid);
  const started = performance.now();
  const run = pgbench(url);
  const ms = performance.now() - started;
  const databaseMs = (await postgresCpuMs(url)) - database;
  return {
    ...run,
    databaseCpu: databaseMs / ms,
    apiCpu: apiPid ? (cpuMs(apiPid) - api) / ms : undefined,
  };
}

async function main() {
  log(`settings ${JSON.stringify(settings)}`);
  if (!process.env.BENCH_SKIP_BUILD) build();
  const ours = await createDatabase('writers_ours');
  const bare = await createDatabase('writers_bare');
  const loadBefore = loadavg();
  const results = { bare: [], ours: [], indexes: [], notify: [], consumers: [] };
  let server;
  let consumers;
  try {
    await runSql(bare.url, ...BARE_SCHEMA);
    log('loading');
    await loadData(bare.url, settings);
    await loadData(ours.url, settings);
    for (let round = 1; round <= settings.rounds; round++) {
      log(`round ${round}: tables alone`);
      results.bare.push(await measure(bare.url));
      log(`round ${round}: with the migrations`);
      results.ours.push(await measure(ours.url));
      log(`round ${round}: the migrations' indexes without the stamping trigger`);
      await runSql(ours.url, ...NO_STAMPING);
      results.indexes.push(await measure(ours.url));
      await runSql(ours.url, ...STAMPING);
      log(`round ${round}: with the previous release's NOTIFY trigger`);
      await runSql(ours.url, ...NOTIFY_TRIGGER);
      results.notify.push(await measure(ours.url));
      await runSql(ours.url, ...NO_NOTIFY_TRIGGER);
    }
    const caps = String(settings.consumers * 2);
    server = startServer(
      'dist/main.js',
      {
        DATABASE_URL: ours.url,
        API_KEYS: API_KEY,
        LOG_LEVEL: 'warn',
        MAX_WAITING_POLLS: caps,
        MAX_WAITING_POLLS_PER_KEY: caps,
      },
      await freePort(),
      IMAGE_NODE_ARGS,
    );
    await server.ready;
    consumers = startConsumers(server.port);
    await sleep(10_000);
    for (let round = 1; round <= settings.rounds; round++) {
      log(`round ${round}: with the migrations and ${settings.consumers} long polls`);
      const answersBefore = consumers.answers;
      const run = await measure(ours.url, server.child.pid);
      results.consumers.push({ ...run, answers: consumers.answers - answersBefore });
    }
    consumers.stopped = true;
    const report = render(results, consumers.refusals, loadBefore, loadavg());
    console.log(`\n${report}`);
    const stamp = new Date().toISOString().slice(0, 16).replace(/[:T]/g, '-');
    writeFileSync(join(root, 'bench/results', `${stamp}-writers.md`), report);
  } finally {
    if (consumers) consumers.stopped = true;
    agent.destroy();
    if (server) {
      server.child.kill('SIGTERM');
      await server.exited;
    }
    await ours.drop();
    await bare.drop();
  }
}

function render(results, refusals, loadBefore, loadAfter) {
  const base = results.bare;
  const row = (name, runs) => {
    const cells = runs.map((run, i) => {
      const rate = `${Math.round(run.commitsPerSecond).toLocaleString('en')}/s (${(run.commitsPerSecond / base[i].commitsPerSecond).toFixed(2)}×)`;
      const p99 = `${run.p99.toFixed(1)} ms (${(run.p99 / base[i].p99).toFixed(2)}×)`;
      const cpu = `${Math.round(run.databaseCpu * 100)} %${run.apiCpu === undefined ? '' : ` + API ${Math.round(run.apiCpu * 100)} %`}`;
      const answers =
        run.answers === undefined ? '' : `, ${run.answers.toLocaleString('en')} answers`;
      return `${rate}, p50 ${run.p50.toFixed(1)} ms, p99 ${p99}, CPU ${cpu}${answers}`;
    });
    return `| ${name} | ${cells.join(' | ')} |`;
  };
  const loads = (values) => values.map((value) => value.toFixed(2)).join(' ');
  return [
    `# What the API costs the writers — ${new Date().toISOString()}`,
    '',
    `pgbench: ${settings.writers} connections (2 threads) of one-row autocommit UPDATEs of random clients, ${settings.seconds} s a run,`,
    `${settings.links.toLocaleString('en')} links and ${settings.clients.toLocaleString('en')} clients; the PostgreSQL of this machine; runs interleaved by round.`,
    'Ratios against the tables alone of the same round. CPU: the PostgreSQL instance (and the API process), in cores.',
    `Consumers: ${settings.consumers} long polls (wait=25, 10 per link over links 1–100), ${refusals} refusals.`,
    `Load average before ${loads(loadBefore)}, after ${loads(loadAfter)}.`,
    '',
    `| configuration | ${results.bare.map((_, i) => `round ${i + 1}`).join(' | ')} |`,
    `|---|${results.bare.map(() => '---').join('|')}|`,
    row('tables alone (no trigger, no index of ours)', results.bare),
    row('with the migrations (stamping trigger, indexes)', results.ours),
    row("the migrations' indexes without the stamping trigger", results.indexes),
    row("with the previous release's NOTIFY trigger", results.notify),
    row(`with the migrations and ${settings.consumers} long polls`, results.consumers),
    '',
  ].join('\n');
}

await main();
