// `node bench/long-poll.mjs` (npm run bench:long-poll): long polling of the clients feed on one
// API process. BENCH_CONSUMERS polls (`wait=25`) wait caught up; measured: the server's RSS and
// private memory before and with them waiting, its CPU while nothing changes, then the
// commit-to-consumer latency while writers commit single-row changes (INSERT or UPDATE of one
// client, exponential intervals) and every consumer re-polls at once with the cursor it was
// answered.
// BENCH_BACKGROUND_WRITERS (e.g. 16) adds pgbench connections updating random links at full
// rate meanwhile: the database and the change watcher under the writers' load (the links table,
// which the consumers of the clients feed do not follow: on the clients table every consumer
// would receive every write).
// Writes bench/results/<stamp>-long-poll.md. Measurements only: nothing here passes or fails.
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import {
  API_KEY,
  cpuMs,
  databaseCpu,
  databaseCpuSince,
  peakOf,
  peakRssMb,
  privateRssMb,
  rssMb,
  scrapeMetric,
  scrapeMetrics,
} from './measure.mjs';
import {
  build,
  createDatabase,
  environmentOf,
  freePort,
  loadData,
  root,
  podMemory,
  startServer,
  IMAGE_NODE_ARGS,
} from './support.mjs';

const settings = {
  consumers: Number(process.env.BENCH_CONSUMERS ?? 1000),
  clients: Number(process.env.BENCH_CLIENTS ?? 10_000),
  links: 100,
  idleSeconds: Number(process.env.BENCH_IDLE_SECONDS ?? 20),
  writeSeconds: Number(process.env.BENCH_SECONDS ?? 45),
  meanIntervalMs: Number(process.env.BENCH_MEAN_INTERVAL_MS ?? 200),
  writers: 2,
  backgroundWriters: Number(process.env.BENCH_BACKGROUND_WRITERS ?? 0),
};
const log = (message) => console.log(`[long-poll] ${message}`);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

// One keep-alive socket per consumer, the server on its own process.
const agent = new Agent({ keepAlive: true, maxSockets: Infinity });

function getFeed(port, query) {
  return new Promise((resolve, reject) => {
    const options = {
      port,
      agent,
      path: `/api/data/changes/clients?${query}`,
      headers: { authorization: `Bearer ${API_KEY}` },
    };
    request(options, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () =>
        res.statusCode === 200
          ? resolve(JSON.parse(text))
          : reject(new Error(`${res.statusCode} ${text}`)),
      );
    })
      .on('error', reject)
      .end();
  });
}

/** A change's key: its id and updated_at in milliseconds (cut), as the feed prints it. */
const printedKey = (row) => `${row.id}@${Date.parse(row.updatedAt)}`;

/** The position after every row already committed: one walk of the feed to its end. */
async function caughtUpCursor(port) {
  let cursor = '';
  for (let more = true; more;) {
    const body = await getFeed(
      port,
      `limit=1000${cursor && `&cursor=${encodeURIComponent(cursor)}`}`,
    );
    cursor = body.meta.nextCursor;
    more = body.meta.hasMore;
  }
  return cursor;
}

// The event loop's delay p99 since the last scrape: prom-client resets it at each, so a phase's
// figure is read with the phase's other metrics, in the one scrape that ends it.
const EVENT_LOOP_P99 = 'nodejs_eventloop_lag_p99_seconds';

const inPodMemory = process.env.BENCH_POD_MEMORY
  ? `, in a memory cgroup of ${Number(process.env.BENCH_POD_MEMORY) / 2 ** 20} MiB`
  : '';

const waitingPolls = (metricsPort) => scrapeMetric(metricsPort, 'change_feed_waiting_polls');

/** Consumers, each long polling from `cursor` until stopped; `onRow(key, receivedAt)` per row. */
function startConsumers(port, cursor, onRow) {
  const state = { stopped: false, errors: [], answered: 0 };
  const consume = async () => {
    let position = cursor;
    while (!state.stopped) {
      try {
        const body = await getFeed(
          port,
          `wait=25&limit=1000&cursor=${encodeURIComponent(position)}`,
        );
        const receivedAt = performance.now();
        for (const row of body.data) onRow(printedKey(row), receivedAt);
        position = body.meta.nextCursor;
        state.answered++;
      } catch (error) {
        if (state.stopped) break;
        state.errors.push(error.message);
        await sleep(1000);
      }
    }
  };
  state.done = Promise.all(Array.from({ length: settings.consumers }, consume));
  return state;
}

/** A writer committing single-row changes at exponential intervals; `committed(key, at)` each. */
async function writer(databaseUrl, until, committed, number) {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  const returning = `RETURNING id, floor(extract(epoch FROM updated_at) * 1000)::bigint::text AS millis`;
  let inserted = 0;
  try {
    while (performance.now() < until) {
      await sleep(-Math.log(1 - Math.random()) * settings.meanIntervalMs * settings.writers);
      const { rows } =
        Math.random() < 0.5
          ? await client.query(
              `INSERT INTO clients (id, link_id, is_deleted, status) VALUES ($1, 'link-1', false, 'new') ${returning}`,
              [`long-poll-${number}-${inserted++}`],
            )
          : await client.query(
              `UPDATE clients SET status = CASE status WHEN 'new' THEN 'connected' ELSE 'new' END WHERE id = $1 ${returning}`,
              [`client-${1 + Math.floor(Math.random() * settings.clients)}`],
            );
      committed(`${rows[0].id}@${rows[0].millis}`, performance.now());
    }
  } finally {
    await client.end();
  }
}

/** pgbench updating random links at full rate for `seconds`; resolves with its commits. */
function backgroundWriters(url, seconds) {
  if (settings.backgroundWriters === 0) return Promise.resolve(0);
  const dir = mkdtempSync(join(tmpdir(), 'long-poll-writers-'));
  const script = join(dir, 'update.sql');
  writeFileSync(
    script,
    `\\set n random(2, ${settings.links})\nUPDATE links SET created_at = created_at WHERE id = 'link-' || :n;\n`,
  );
  const args = ['-n', '-c', String(settings.backgroundWriters), '-j', '2', '-T', String(seconds)];
  const child = spawn('pgbench', [...args, '-f', script, url], {
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  return new Promise((resolve) =>
    child.on('exit', () => {
      rmSync(dir, { recursive: true, force: true });
      resolve(Number(/number of transactions actually processed: (\d+)/.exec(output)?.[1] ?? 0));
    }),
  );
}

const percentile = (sorted, p) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];

async function main() {
  log(`settings ${JSON.stringify(settings)}`);
  if (!process.env.BENCH_SKIP_BUILD) build();
  const database = await createDatabase('longpoll');
  const metricsPort = await freePort();
  // Every consumer under one key, so every cap above the consumers: a waiting poll counts only
  // against the waiting-poll caps, but all of them start at once and read at once when woken.
  const caps = String(settings.consumers * 2);
  const limits = {
    MAX_REQUESTS_PER_KEY: caps,
    MAX_REQUESTS_IN_FLIGHT: caps,
    MAX_WAITING_POLLS: caps,
    MAX_WAITING_POLLS_PER_KEY: caps,
  };
  const env = {
    DATABASE_URL: database.url,
    API_KEYS: API_KEY,
    METRICS_PORT: String(metricsPort),
    LOG_LEVEL: 'warn',
    ...limits,
    // BENCH_SERVER_ENV: more of the server's environment, e.g. `MALLOC_ARENA_MAX=8` (the image's is 2).
    ...environmentOf((process.env.BENCH_SERVER_ENV ?? '').split(/\s+/).filter(Boolean)),
  };
  // --trace-gc: the full collections, whose pauses set the event-loop delay near the heap bound.
  const server = startServer('dist/main.js', env, await freePort(), [
    '--trace-gc',
    ...IMAGE_NODE_ARGS,
  ]);
  const pid = server.child.pid;
  const loadBefore = loadavg();
  let consumers;
  let privatePeak;
  let podWorkingSet;
  try {
    await loadData(database.url, settings);
    await server.ready;
    const cursor = await caughtUpCursor(server.port);
    await sleep(2000);
    const rssBefore = rssMb(pid);
    const privateBefore = privateRssMb(pid);
    privatePeak = peakOf(privateRssMb, pid);
    if (process.env.BENCH_POD_MEMORY)
      podWorkingSet = peakOf(() => podMemory(server.port).workingSetMb);

    const commits = new Map();
    const latencies = [];
    let unmatched = 0;
    consumers = startConsumers(server.port, cursor, (key, receivedAt) => {
      const committedAt = commits.get(key);
      if (committedAt === undefined) unmatched++;
      else latencies.push(receivedAt - committedAt);
    });
    while ((await waitingPolls(metricsPort)) < settings.consumers) await sleep(200);
    await sleep(2000);
    const rssWaiting = rssMb(pid);
    const privateWaiting = privateRssMb(pid);
    const cpuBefore = cpuMs(pid);
    await sleep(settings.idleSeconds * 1000);
    const idleCpuPercent = ((cpuMs(pid) - cpuBefore) / (settings.idleSeconds * 1000)) * 100;
    const [stillWaiting, idleEventLoopP99S] = await scrapeMetrics(
      metricsPort,
      'change_feed_waiting_polls',
      EVENT_LOOP_P99,
    );
    log(
      `RSS ${rssBefore.toFixed(1)} → ${rssWaiting.toFixed(1)} MB, idle CPU ${idleCpuPercent.toFixed(2)} %`,
    );

    const until = performance.now() + settings.writeSeconds * 1000;
    const cpuWriting = cpuMs(pid);
    const [benchCpuWriting, databaseWriting] = [
      process.cpuUsage(),
      await databaseCpu(database.url),
    ];
    const wakeUpsWriting = await scrapeMetric(metricsPort, 'change_feed_wakeups_total');
    const answeredWriting = consumers.answered;
    const gcWriting = { ...server.gc };
    server.gc.fullMaxMs = 0;
    const record = (key, at) => commits.set(key, at);
    const background = backgroundWriters(database.url, settings.writeSeconds);
    await Promise.all(
      Array.from({ length: settings.writers }, (_, i) => writer(database.url, until, record, i)),
    );
    const backgroundCommits = await background;
    // The last changes' deliveries, up to 10 s.
    const drainStart = performance.now();
    while (
      latencies.length < commits.size * settings.consumers &&
      performance.now() - drainStart < 10_000
    )
      await sleep(100);
    const writingMs = settings.writeSeconds * 1000 + (performance.now() - drainStart);
    const writingCpuMs = cpuMs(pid) - cpuWriting;
    const writingCpuPercent = (writingCpuMs / writingMs) * 100;
    const answers = consumers.answered - answeredWriting;
    const { user, system } = process.cpuUsage(benchCpuWriting);
    const benchCpuPercent = ((user + system) / 1000 / writingMs) * 100;
    const databaseMs = databaseCpuSince(databaseWriting, await databaseCpu(database.url));
    const databaseCpuPercent = (databaseMs / writingMs) * 100;
    const [wakeUpsAfter, writingEventLoopP99S] = await scrapeMetrics(
      metricsPort,
      'change_feed_wakeups_total',
      EVENT_LOOP_P99,
    );
    const wakeUps = wakeUpsAfter - wakeUpsWriting;
    const fullCollections = server.gc.full - gcWriting.full;
    const fullPauseMeanMs =
      fullCollections > 0 ? (server.gc.fullMs - gcWriting.fullMs) / fullCollections : 0;
    const fullPauseMaxMs = server.gc.fullMaxMs;
    const reducingCollections = server.gc.reducing - gcWriting.reducing;
    const rssAfter = rssMb(pid);
    const peakRss = peakRssMb(pid);
    const podWorkingSetPeak = podWorkingSet?.();
    const podLimitHits = podMemory(server.port)?.limitHits;
    const peakPrivate = privatePeak();
    consumers.stopped = true;
    agent.destroy();

    latencies.sort((a, b) => a - b);
    const expected = commits.size * settings.consumers;
    const figures = {
      rssBefore,
      rssWaiting,
      rssAfter,
      peakRss,
      podWorkingSetPeak,
      podLimitHits,
      privateBefore,
      privateWaiting,
      peakPrivate,
      idleEventLoopP99Ms: idleEventLoopP99S * 1000,
      writingEventLoopP99Ms: writingEventLoopP99S * 1000,
      idleCpuPercent,
      stillWaiting,
      writingCpuPercent,
      answers,
      cpuUsPerAnswer: answers > 0 ? (writingCpuMs * 1000) / answers : 0,
      benchCpuPercent,
      databaseCpuPercent,
      wakeUps,
      fullCollections,
      fullPauseMeanMs,
      fullPauseMaxMs,
      reducingCollections,
      backgroundCommits,
      changes: commits.size,
      deliveries: latencies.length,
      expected,
      unmatched,
      errors: consumers.errors.length,
      firstError: consumers.errors[0],
      p50: percentile(latencies, 50),
      p90: percentile(latencies, 90),
      p99: percentile(latencies, 99),
      max: latencies.at(-1),
      loadBefore,
      loadAfter: loadavg(),
    };
    log(JSON.stringify(figures));
    const report = render(figures);
    console.log(`\n${report}`);
    const stamp = new Date().toISOString().slice(0, 16).replace(/[:T]/g, '-');
    writeFileSync(join(root, 'bench/results', `${stamp}-long-poll.md`), report);
  } finally {
    if (consumers) consumers.stopped = true;
    privatePeak?.();
    podWorkingSet?.();
    agent.destroy();
    server.child.kill('SIGTERM');
    await server.exited;
    await database.drop();
  }
}

function render(f) {
  const ms = (value) => `${Math.round(value).toLocaleString('en')} ms`;
  const loads = (values) => values.map((value) => value.toFixed(2)).join(' ');
  return [
    `# Long polling of the clients feed — ${new Date().toISOString()}`,
    '',
    `${settings.consumers} consumers (\`wait=25\`, one keep-alive socket each, in the bench process) on one`,
    `API process (${process.env.BENCH_NODE ? 'BENCH_NODE' : 'node'}, ${IMAGE_NODE_ARGS.join(' ')}${inPodMemory}${process.env.BENCH_SERVER_ENV ? `, ${process.env.BENCH_SERVER_ENV}` : ''}); ${settings.clients.toLocaleString('en')} clients;`,
    `MAX_REQUESTS_PER_KEY, MAX_REQUESTS_IN_FLIGHT, MAX_WAITING_POLLS and MAX_WAITING_POLLS_PER_KEY ${settings.consumers * 2}, rate limits off (one key).`,
    `Load average before ${loads(f.loadBefore)}, after ${loads(f.loadAfter)}.`,
    '',
    '| measure | figure |',
    '|---|---:|',
    `| server RSS before the polls | ${f.rssBefore.toFixed(1)} MB |`,
    `| server RSS with ${settings.consumers} waiting | ${f.rssWaiting.toFixed(1)} MB (+${(f.rssWaiting - f.rssBefore).toFixed(1)} MB) |`,
    `| server CPU, ${settings.idleSeconds} s without changes | ${f.idleCpuPercent.toFixed(2)} % of a core (${f.stillWaiting} still waiting) |`,
    `| changes committed (${settings.writers} writers, mean interval ${settings.meanIntervalMs} ms, ${settings.writeSeconds} s) | ${f.changes} |`,
    ...(settings.backgroundWriters
      ? [
          `| links updated meanwhile by ${settings.backgroundWriters} pgbench connections at full rate | ${f.backgroundCommits.toLocaleString('en')} (${Math.round(f.backgroundCommits / settings.writeSeconds).toLocaleString('en')}/s) |`,
        ]
      : []),
    `| deliveries / expected | ${f.deliveries.toLocaleString('en')} / ${f.expected.toLocaleString('en')} (${f.unmatched} unmatched, ${f.errors} errors) |`,
    `| commit-to-consumer p50 / p90 / p99 / max | ${ms(f.p50)} / ${ms(f.p90)} / ${ms(f.p99)} / ${ms(f.max)} |`,
    `| CPU while changes flow: server / PostgreSQL backends / bench (consumers, writers) | ${[f.writingCpuPercent, f.databaseCpuPercent, f.benchCpuPercent].map((p) => `${p.toFixed(0)} %`).join(' / ')} of a core |`,
    `| answers while changes flow / server CPU per answer | ${f.answers.toLocaleString('en')} / ${Math.round(f.cpuUsPerAnswer)} µs |`,
    `| reads by waiting polls while changes flow (change_feed_wakeups_total) | ${f.wakeUps.toLocaleString('en')} (${(f.wakeUps / f.changes).toFixed(0)} per change) |`,
    `| server RSS after / peak (VmHWM) | ${f.rssAfter.toFixed(1)} MB / ${f.peakRss.toFixed(1)} MB |`,
    ...(f.podWorkingSetPeak === undefined
      ? []
      : [
          `| the pod's working set (its cgroup's charge less inactive file pages, as the kubelet reads it): highest from the polls to the end / times the charge met the limit | ${f.podWorkingSetPeak.toFixed(1)} MB / ${f.podLimitHits.toLocaleString('en')} |`,
        ]),
    `| server private memory (RssAnon: RSS without Node's code mapped from its file): before the polls / ${settings.consumers} waiting / highest from then to the end | ${[f.privateBefore, f.privateWaiting, f.peakPrivate].map((mb) => `${mb.toFixed(1)} MB`).join(' / ')} |`,
    `| event-loop delay p99: polls waiting, nothing written / changes flowing | ${f.idleEventLoopP99Ms.toFixed(1)} ms / ${f.writingEventLoopP99Ms.toFixed(1)} ms |`,
    `| full garbage collections while changes flow: count (in memory-reducing mode) / main-thread pause mean / longest | ${f.fullCollections} (${f.reducingCollections}) / ${f.fullPauseMeanMs.toFixed(1)} ms / ${f.fullPauseMaxMs.toFixed(1)} ms |`,
    ...(f.firstError ? ['', `First error: ${f.firstError}`] : []),
    '',
  ].join('\n');
}

await main();
