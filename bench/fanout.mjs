// `node bench/fanout.mjs` (npm run bench:fanout): many long polls of the clients feed at one
// position, woken by the same commits, as a fleet of sync jobs following one feed is. BENCH_CONSUMERS
// polls (`wait=25`, each asking `Accept-Encoding: BENCH_ACCEPT_ENCODING`, gzip by default as most
// HTTP clients do) wait caught up; a writer commits BENCH_BATCH new clients in one statement every
// second; every consumer re-polls at once with the cursor it was answered. Measured over
// BENCH_SECONDS: the server's CPU per answered poll, the rows delivered, its RSS.
// BENCH_SERVER_SCRIPT runs another build (e.g. an older one copied aside) for an A/B in one run.
// Measurements only: prints figures, nothing passes or fails.
import { Agent, request } from 'node:http';
import { createGunzip } from 'node:zlib';
import { API_KEY, cpuMs, rssMb } from './measure.mjs';
import {
  build,
  createDatabase,
  freePort,
  loadData,
  runSql,
  startServer,
  IMAGE_NODE_ARGS,
} from './support.mjs';

const settings = {
  consumers: Number(process.env.BENCH_CONSUMERS ?? 1000),
  batch: Number(process.env.BENCH_BATCH ?? 20),
  seconds: Number(process.env.BENCH_SECONDS ?? 30),
  encoding: process.env.BENCH_ACCEPT_ENCODING ?? 'gzip',
  scripts: (process.env.BENCH_SERVER_SCRIPT ?? 'dist/main.js').split(','),
};
const log = (message) => console.log(`[fanout] ${message}`);
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

function get(port, agent, path) {
  const headers = { Authorization: `Bearer ${API_KEY}`, 'Accept-Encoding': settings.encoding };
  return new Promise((resolve) => {
    const req = request({ port, host: '127.0.0.1', path, agent, headers }, (res) => {
      const body = res.headers['content-encoding'] === 'gzip' ? res.pipe(createGunzip()) : res;
      let text = '';
      body.on('data', (chunk) => (text += chunk));
      body.on('end', () => resolve({ status: res.statusCode, page: JSON.parse(text) }));
      body.on('error', () => resolve({ status: 0 }));
    });
    req.on('error', () => resolve({ status: 0 }));
    req.end();
  });
}

const feedPath = (cursor, query) =>
  `/api/data/changes/clients?limit=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}${query}`;

async function measure(script, databaseUrl) {
  const server = startServer(
    script,
    {
      DATABASE_URL: databaseUrl,
      API_KEYS: API_KEY,
      LOG_LEVEL: 'warn',
      MAX_WAITING_POLLS: String(settings.consumers),
      MAX_WAITING_POLLS_PER_KEY: String(settings.consumers),
      MAX_REQUESTS_IN_FLIGHT: String(settings.consumers + 256),
    },
    await freePort(),
    IMAGE_NODE_ARGS,
  );
  const { pid } = server.child;
  const agent = new Agent({ keepAlive: true, maxSockets: Infinity });
  const state = { stopped: false, answered: 0, rows: 0, refused: 0 };
  try {
    await server.ready;
    let end = (await get(server.port, agent, feedPath(undefined, ''))).page;
    while (end.meta.hasMore)
      end = (await get(server.port, agent, feedPath(end.meta.nextCursor, ''))).page;
    const consumer = async (cursor) => {
      while (!state.stopped) {
        const { status, page } = await get(server.port, agent, feedPath(cursor, '&wait=25'));
        if (status !== 200) {
          state.refused++;
          await sleep(1000);
          continue;
        }
        state.answered++;
        state.rows += page.data.length;
        cursor = page.meta.nextCursor;
      }
    };
    for (let i = 0; i < settings.consumers; i++) void consumer(end.meta.nextCursor);
    let batches = 0;
    const writer = setInterval(() => {
      const ids = `'fanout-' || ${++batches} || '-' || g || '-' || ${Date.now()}`;
      void runSql(
        databaseUrl,
        `INSERT INTO clients (id, link_id, status)
        SELECT ${ids}, 'link-1', 'new' FROM generate_series(1, ${settings.batch}) AS g`,
      );
    }, 1000);
    await sleep(5000);
    const [cpuBefore, answeredBefore, rowsBefore] = [cpuMs(pid), state.answered, state.rows];
    await sleep(settings.seconds * 1000);
    const cpu = cpuMs(pid) - cpuBefore;
    const answered = state.answered - answeredBefore;
    clearInterval(writer);
    return {
      script,
      answered,
      rows: state.rows - rowsBefore,
      refused: state.refused,
      cpuPerAnswerUs: Math.round((cpu * 1000) / answered),
      cpuPercent: Math.round((cpu / (settings.seconds * 1000)) * 100),
      rssMb: Math.round(rssMb(pid)),
    };
  } finally {
    state.stopped = true;
    agent.destroy();
    server.child.kill('SIGKILL');
    await server.exited;
  }
}

if (!process.env.BENCH_SKIP_BUILD) build();
const database = await createDatabase('fanout');
try {
  await loadData(database.url, { links: 100, clients: 10_000 });
  log(`settings ${JSON.stringify(settings)}`);
  const results = [];
  for (const script of settings.scripts) results.push(await measure(script, database.url));
  console.log(
    '\n| server | answered polls | rows delivered | refused | server CPU % | CPU µs per answered poll | RSS MB |',
  );
  console.log('|---|---:|---:|---:|---:|---:|---:|');
  for (const r of results) {
    console.log(
      `| ${r.script} | ${r.answered} | ${r.rows} | ${r.refused} | ${r.cpuPercent} | ${r.cpuPerAnswerUs} | ${r.rssMb} |`,
    );
  }
} finally {
  await database.drop();
}
