// `node bench/tenants.mjs` (npm run bench:tenants): one tenant's gets by id, alone and beside
// other keys' long polls, on one server with the default caps (rate limits off), the image's
// options (BENCH_POD_MEMORY when set), 100,000 clients over 1,000 links. Phases:
// - alone: the tenant's gets only;
// - untouched: 10 keys × 100 polls of the client feed, each filtered on one of 100 links no writer
//   touches, while a writer commits 20 one-row updates a second to other links;
// - unfiltered: 10 keys × 100 polls of the whole client feed, while a writer commits 5 one-row
//   updates a second (each of which every poll must be sent).
// Per phase: the tenant's requests/s, p50, p99 and non-2xx (BENCH_CONNECTIONS connections, its own
// key, BENCH_SECONDS), the polls answered and refused, the reads by waiting polls
// (change_feed_wakeups_total) and the server's CPU. Writes bench/results/<stamp>-tenants.md.
// Measurements only: nothing passes or fails.
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { API_KEY, cpuMs, load, rssMb, scrapeMetric } from './measure.mjs';
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
  connections: Number(process.env.BENCH_CONNECTIONS ?? 16),
  seconds: Number(process.env.BENCH_SECONDS ?? 15),
  clients: 100_000,
  links: 1000,
  pollKeys: 10,
  pollsPerKey: 100,
};
const log = (message) => console.log(`[tenants] ${message}`);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const pollKeys = Array.from({ length: settings.pollKeys }, () =>
  randomBytes(24).toString('base64url'),
);

function get(port, agent, path, key) {
  return new Promise((resolve) => {
    const headers = { Authorization: `Bearer ${key}` };
    const req = request({ port, host: '127.0.0.1', path, agent, headers }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk) => (text += chunk));
      res.on('end', () =>
        resolve({
          status: res.statusCode,
          page: res.statusCode === 200 ? JSON.parse(text) : undefined,
        }),
      );
      res.on('error', () => resolve({ status: 0 }));
    });
    req.on('error', () => resolve({ status: 0 }));
    req.end();
  });
}

const feedPath = (cursor, query) =>
  `/api/data/changes/clients?limit=1000${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}${query}`;

/** The cursor past the feed's end (of one link's clients, with `query`). */
async function caughtUp(port, agent, query) {
  let page = (await get(port, agent, feedPath(undefined, query), pollKeys[0])).page;
  while (page.meta.hasMore) {
    page = (await get(port, agent, feedPath(page.meta.nextCursor, query), pollKeys[0])).page;
  }
  return page.meta.nextCursor;
}

/** Waiting polls of every poll key; `query(i)` filters the i-th, from `cursors(i)`. */
function startPolls(port, query, cursors) {
  const agent = new Agent({ keepAlive: true, maxSockets: Infinity });
  const state = { stopped: false, answered: 0, refused: 0 };
  const poll = async (i) => {
    const key = pollKeys[i % settings.pollKeys];
    let cursor = cursors(i);
    while (!state.stopped) {
      const { status, page } = await get(port, agent, feedPath(cursor, `${query(i)}&wait=25`), key);
      if (status !== 200) {
        state.refused++;
        await sleep(1000);
        continue;
      }
      state.answered++;
      cursor = page.meta.nextCursor;
    }
  };
  for (let i = 0; i < settings.pollKeys * settings.pollsPerKey; i++) void poll(i);
  return {
    state,
    stop: () => {
      state.stopped = true;
      agent.destroy();
    },
  };
}

/** One-row updates of clients of links 1–5 (no poll of the untouched phase watches them). */
function startWriter(databaseUrl, perSecond) {
  const client = new pg.Client({ connectionString: databaseUrl });
  let commits = 0;
  const ready = client.connect();
  const timer = setInterval(() => {
    const id = `client-${5 * (1 + Math.floor(Math.random() * (settings.clients / 5 - 1)))}`;
    void ready
      .then(() =>
        client.query(
          `UPDATE clients SET status = CASE WHEN status = 'new' THEN 'connected' ELSE 'new' END,
                  updated_at = now() WHERE id = $1`,
          [id],
        ),
      )
      .then(() => commits++)
      // A write still running when the writer stops.
      .catch(() => undefined);
  }, 1000 / perSecond);
  return {
    stop: async () => {
      clearInterval(timer);
      await client.end();
      return commits;
    },
  };
}

/** The tenant's gets while `phase` runs, with what the server and the polls did meanwhile. */
async function tenantGets(server, metricsPort, name, polls) {
  const { pid } = server.child;
  const [cpuBefore, wakeUpsBefore] = [
    cpuMs(pid),
    await scrapeMetric(metricsPort, 'change_feed_wakeups_total'),
  ];
  const before = polls ? { ...polls.state } : { answered: 0, refused: 0 };
  const paths = () =>
    `/api/data/clients/client-${1 + Math.floor(Math.random() * settings.clients)}`;
  const gets = await load(server.port, paths, {
    connections: settings.connections,
    seconds: settings.seconds,
  });
  const result = {
    name,
    ...gets,
    pollsAnswered: polls ? polls.state.answered - before.answered : 0,
    pollsRefused: polls ? polls.state.refused - before.refused : 0,
    wakeUps: (await scrapeMetric(metricsPort, 'change_feed_wakeups_total')) - wakeUpsBefore,
    cpuPercent: ((cpuMs(pid) - cpuBefore) / (settings.seconds * 1000)) * 100,
    rssMb: rssMb(pid),
  };
  log(JSON.stringify(result));
  return result;
}

if (!process.env.BENCH_SKIP_BUILD) build();
const database = await createDatabase('tenants');
const metricsPort = await freePort();
const server = startServer(
  'dist/main.js',
  {
    DATABASE_URL: database.url,
    API_KEYS: [API_KEY, ...pollKeys].join(','),
    LOG_LEVEL: 'warn',
    METRICS_PORT: String(metricsPort),
  },
  await freePort(),
  IMAGE_NODE_ARGS,
);
try {
  await loadData(database.url, settings);
  await server.ready;
  log(`settings ${JSON.stringify(settings)}`);
  const results = [await tenantGets(server, metricsPort, 'alone')];
  const agent = new Agent({ keepAlive: true });
  const untouchedLink = (i) => `link-${settings.links - (i % 100)}`;
  const cursorOf = new Map();
  let everything;
  for (let i = 0; i < 100; i++) {
    const link = untouchedLink(i);
    cursorOf.set(link, await caughtUp(server.port, agent, `&linkId=${link}`));
  }
  const phases = [
    {
      name: 'untouched: 1,000 polls on 100 links, 20 commits/s elsewhere',
      query: (i) => `&linkId=${untouchedLink(i)}`,
      cursors: (i) => cursorOf.get(untouchedLink(i)),
      commitsPerSecond: 20,
    },
    {
      name: 'unfiltered: 1,000 polls of the whole feed, 5 commits/s',
      query: () => '',
      cursors: () => everything,
      commitsPerSecond: 5,
    },
  ];
  for (const phase of phases) {
    everything = await caughtUp(server.port, agent, '');
    const polls = startPolls(server.port, phase.query, phase.cursors);
    while ((await scrapeMetric(metricsPort, 'change_feed_waiting_polls')) < 1000) await sleep(200);
    const writer = startWriter(database.url, phase.commitsPerSecond);
    await sleep(3000);
    results.push(await tenantGets(server, metricsPort, phase.name, polls));
    await writer.stop();
    polls.stop();
    await sleep(2000);
  }
  agent.destroy();
  const report = [
    `# One tenant's gets beside other keys' long polls — ${new Date().toISOString()}`,
    '',
    `One server (${process.env.BENCH_NODE ? 'BENCH_NODE' : 'node'}, the image's options${
      process.env.BENCH_POD_MEMORY
        ? `, in a memory cgroup of ${process.env.BENCH_POD_MEMORY} bytes`
        : ''
    }), the default caps, rate limits off; ${settings.clients.toLocaleString('en')} clients over ${settings.links.toLocaleString('en')} links.`,
    `The tenant: gets by id of random clients, ${settings.connections} connections, its own key, ${settings.seconds} s a phase.`,
    `The polls: ${settings.pollKeys} other keys × ${settings.pollsPerKey}, \`wait=25\`, each re-polling at once with its cursor.`,
    `Load average at the end ${loadavg()
      .map((l) => l.toFixed(2))
      .join(' ')}.`,
    '',
    '| phase | tenant req/s | p50 ms | p99 ms | non-2xx | polls answered | polls refused | reads by waiting polls | server CPU % | RSS MB |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...results.map(
      (r) =>
        `| ${r.name} | ${Math.round(r.rps)} | ${r.p50} | ${r.p99} | ${r.errors} | ${r.pollsAnswered} | ${r.pollsRefused} | ${r.wakeUps} | ${Math.round(r.cpuPercent)} | ${Math.round(r.rssMb)} |`,
    ),
    '',
  ].join('\n');
  console.log(`\n${report}`);
  const stamp = new Date().toISOString().slice(0, 16).replace(/[:T]/g, '-');
  writeFileSync(join(root, 'bench/results', `${stamp}-tenants.md`), report);
} finally {
  server.child.kill('SIGKILL');
  await server.exited;
  await database.drop();
}
