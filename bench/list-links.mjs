// `npm run bench:list-links`: a List Links body streamed past the kept size, against
// PostgreSQL's own `COPY (SELECT json ... ORDER BY created_at, id) TO STDOUT` of the same rows
// (through psql, which must be installed), both in one run, at each of BENCH_LIST_SIZES links
// (default 200000,1000000), plus a list that fits the kept size (BENCH_KEPT_LINKS, 50,000) for
// the time per link of the kept-body path. Per size: bytes per second of each (a reader at
// full speed, identity encoding, and gzip's content rate; median of BENCH_ROUNDS), the server's CPU and peak RSS (run
// under BENCH_POD_MEMORY when set, with the image's Node options). Writes
// bench/results/<stamp>-list-links.md. Measurements only: nothing here passes or fails.
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { API_KEY, cpuMs, peakRssMb } from './measure.mjs';
import {
  build,
  createDatabase,
  freePort,
  insertLinksSql,
  root,
  runSql,
  startServer,
  IMAGE_NODE_ARGS,
} from './support.mjs';

const settings = {
  sizes: (process.env.BENCH_LIST_SIZES ?? '200000,1000000').split(',').map(Number),
  keptLinks: Number(process.env.BENCH_KEPT_LINKS ?? 50_000),
  rounds: Number(process.env.BENCH_ROUNDS ?? 3),
};
const log = (message) => console.log(`[list-links] ${message}`);
const median = (values) => [...values].sort((a, b) => a - b)[values.length >> 1];
const MB = 1e6;

const printed = (column) =>
  `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
const COPY = `COPY (SELECT json_build_object('id', id, 'createdAt', ${printed('created_at')},
  'updatedAt', ${printed('updated_at')})::text FROM links ORDER BY created_at, id COLLATE "C")
  TO STDOUT`;

/** PostgreSQL's own rate: psql's COPY of the rows as JSON, read as fast as psql can. */
function copyOnce(url) {
  return new Promise((resolve, reject) => {
    const started = process.hrtime.bigint();
    const psql = spawn('psql', [url, '-X', '-q', '-c', COPY], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let bytes = 0;
    psql.stdout.on('data', (chunk) => (bytes += chunk.length));
    psql.once('error', reject);
    psql.once('exit', (code) => {
      if (code !== 0) return reject(new Error(`psql exited with ${code}`));
      resolve({ bytes, seconds: Number(process.hrtime.bigint() - started) / 1e9 });
    });
  });
}

/** One List Links request read at full speed: its bytes, seconds and the server's CPU. */
async function listOnce(server, encoding = 'identity') {
  const pid = server.child.pid;
  const cpuBefore = cpuMs(pid);
  const started = process.hrtime.bigint();
  const res = await fetch(`http://127.0.0.1:${server.port}/api/data/links`, {
    headers: { authorization: `Bearer ${API_KEY}`, 'accept-encoding': encoding },
  });
  if (res.status !== 200) throw new Error(`List Links answered ${res.status}`);
  let bytes = 0;
  for await (const chunk of res.body) bytes += chunk.length;
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  return { bytes, seconds, cpuMs: cpuMs(pid) - cpuBefore };
}

async function measureSize(links) {
  const database = await createDatabase('listlinks');
  let server;
  try {
    await runSql(
      database.url,
      'SELECT setseed(0.42)',
      insertLinksSql(links),
      'VACUUM ANALYZE links',
    );
    server = startServer(
      'dist/main.js',
      { DATABASE_URL: database.url, API_KEYS: API_KEY, LOG_LEVEL: 'warn' },
      await freePort(),
      IMAGE_NODE_ARGS,
    );
    await server.ready;
    const copies = [];
    const lists = [];
    const gzipped = [];
    for (let round = 0; round < settings.rounds; round++) {
      copies.push(await copyOnce(database.url));
      // A new list each round: the kept body (for a list that fits) is dropped by the change.
      await runSql(database.url, `UPDATE links SET updated_at = updated_at WHERE id = 'link-1'`);
      lists.push(await listOnce(server));
      await runSql(database.url, `UPDATE links SET updated_at = updated_at WHERE id = 'link-1'`);
      gzipped.push(await listOnce(server, 'gzip'));
    }
    const kept = links <= settings.keptLinks ? await listOnce(server) : undefined;
    const rate = (runs) => median(runs.map((run) => run.bytes / run.seconds)) / MB;
    const list = {
      links,
      copy: rate(copies),
      copyBytes: copies[0].bytes,
      api: rate(lists),
      apiBytes: lists[0].bytes,
      gzip: rate(gzipped),
      usPerLink: (median(lists.map((run) => run.seconds)) * 1e6) / links,
      cpuUsPerLink: (median(lists.map((run) => run.cpuMs)) * 1e3) / links,
      keptUsPerLink: kept && (kept.seconds * 1e6) / links,
      peakRss: peakRssMb(server.child.pid),
    };
    log(JSON.stringify(list));
    return list;
  } finally {
    server?.child.kill('SIGTERM');
    await server?.exited;
    await database.drop();
  }
}

async function main() {
  log(`settings ${JSON.stringify(settings)}`);
  if (!process.env.BENCH_SKIP_BUILD) build();
  const results = [];
  for (const links of [settings.keptLinks, ...settings.sizes])
    results.push(await measureSize(links));
  const [kept] = results;
  const stamp = new Date().toISOString().slice(0, 16).replace(/[T:]/g, '-');
  const report = [
    `# List Links streamed, against PostgreSQL's COPY of the same rows — ${new Date().toISOString()}`,
    '',
    `One server (the image's Node options${process.env.BENCH_POD_MEMORY ? `, in a ${Number(process.env.BENCH_POD_MEMORY) / 2 ** 20} MiB memory cgroup` : ''}), one reader at full speed, identity encoding (and gzip: its content's rate); COPY through psql; median of ${settings.rounds}, both in each round.`,
    `The kept-body path: a list of ${kept.links.toLocaleString('en')} links (under the kept size), rendered for its first request: ${kept.usPerLink.toFixed(2)} µs a link; sent again from the kept body: ${kept.keptUsPerLink.toFixed(2)} µs a link.`,
    `Load average at the end ${loadavg()
      .map((n) => n.toFixed(2))
      .join(' ')}.`,
    '',
    '| links | COPY MB/s | List Links MB/s | ratio | µs a link (kept render ÷) | server CPU µs a link | gzip MB/s | peak RSS |',
    '|---:|---:|---:|---:|---:|---:|---:|---:|',
    ...results.map(
      (r) =>
        `| ${r.links.toLocaleString('en')} | ${r.copy.toFixed(1)} (${(r.copyBytes / MB).toFixed(0)} MB) | ${r.api.toFixed(1)} (${(r.apiBytes / MB).toFixed(0)} MB) | **${(r.api / r.copy).toFixed(2)}×** | ${r.usPerLink.toFixed(2)} (${(r.usPerLink / kept.usPerLink).toFixed(2)}×) | ${r.cpuUsPerLink.toFixed(2)} | ${r.gzip.toFixed(1)} | ${r.peakRss.toFixed(0)} MB |`,
    ),
    '',
  ].join('\n');
  console.log(`\n${report}`);
  writeFileSync(join(root, 'bench/results', `${stamp}-list-links.md`), report);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
