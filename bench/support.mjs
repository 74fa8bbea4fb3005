// Shared by the bench modules (run, soak, feeds, compression): a throw-away database, the
// production server (built, migrated, started), SQL and ports. Requires `npm run build` first.
import { execFileSync, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  rmdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { createRequire } from 'node:module';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';

export const root = new URL('..', import.meta.url).pathname;

export function build() {
  execFileSync('npm', ['run', 'build', '--silent'], { cwd: root, stdio: 'inherit' });
}

export async function freePort() {
  return new Promise((resolve) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address();
      probe.close(() => resolve(port));
    });
  });
}

/**
 * Inserts `count` links, created at random over two years and updated a day later. random() in
 * a subquery's select list is drawn per row (in an uncorrelated LATERAL it would be drawn once,
 * giving every row the same timestamp); the spread decides how well List Links compresses.
 */
export const insertLinksSql = (count) => `INSERT INTO links (id, created_at, updated_at)
  SELECT 'link-' || i, t, t + interval '1 day'
  FROM (SELECT i, timestamptz '2024-11-01' + random() * interval '730 days' AS t
        FROM generate_series(1, ${count}) AS i) AS g`;

// 10K links over two years; 1M clients, a fifth of them on five hot links; ~60 % connected,
// ~35 % new, a few other statuses; 10 % deleted; created at random over two years.
export async function loadData(url, settings) {
  const started = Date.now();
  await runSql(
    url,
    `SELECT setseed(0.42)`,
    insertLinksSql(settings.links),
    `INSERT INTO clients (id, link_id, is_deleted, status, created_at, updated_at)
     SELECT 'client-' || i,
            'link-' || CASE WHEN i % 5 = 0 THEN 1 + (i / 5) % 5 ELSE 1 + (i::bigint * 7919) % ${settings.links} END,
            i % 10 = 3,
            CASE WHEN i % 20 < 12 THEN 'connected' WHEN i % 20 < 19 THEN 'new'
                 WHEN i % 40 = 19 THEN 'suspended' ELSE 'pending' END,
            t, t + interval '1 hour'
     FROM (SELECT i, timestamptz '2024-11-01' + random() * interval '730 days' AS t
           FROM generate_series(1, ${settings.clients}) AS i) AS g`,
    `VACUUM ANALYZE`,
  );
  return (Date.now() - started) / 1000;
}

export async function runSql(url, ...statements) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    for (const statement of statements) await client.query(statement);
  } finally {
    await client.end();
  }
}

/** A fresh, migrated database on DATABASE_URL's server, or on a throw-away embedded one. */
export async function createDatabase(prefix) {
  let serverUrl = process.env.DATABASE_URL;
  let stopEmbedded = async () => undefined;
  if (!serverUrl) {
    const { startEmbeddedDatabase } = createRequire(import.meta.url)(
      join(root, 'dist/dev/embedded-database.js'),
    );
    const directory = mkdtempSync(join(tmpdir(), `links-clients-${prefix}-`));
    const embedded = await startEmbeddedDatabase(directory);
    serverUrl = embedded.url;
    stopEmbedded = async () => {
      await embedded.stop();
      rmSync(directory, { recursive: true, force: true });
    };
  }
  const name = `${prefix}_${randomBytes(4).toString('hex')}`;
  await runSql(serverUrl, `CREATE DATABASE ${name}`);
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  execFileSync(
    'node_modules/.bin/typeorm',
    ['migration:run', '-d', 'dist/entry/migration.data-source.js'],
    {
      cwd: root,
      env: { PATH: process.env.PATH, DATABASE_URL: url.toString() },
      stdio: 'ignore',
    },
  );
  return {
    url: url.toString(),
    drop: async () => {
      await runSql(serverUrl, `DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await stopEmbedded();
    },
  };
}

const CGROUP_V1 = existsSync('/sys/fs/cgroup/memory/cgroup.procs');
const podCgroup = (port) =>
  CGROUP_V1 ? `/sys/fs/cgroup/memory/bench-${port}` : `/sys/fs/cgroup/bench-${port}`;

/**
 * BENCH_POD_MEMORY (bytes, e.g. 268435456 for a 256Mi pod): the server runs in a memory cgroup of
 * that limit, so Node sizes its heap from it as in the pod (cgroup v1 or v2; needs root).
 */
function inPodMemory([command, args], port) {
  const limit = process.env.BENCH_POD_MEMORY;
  if (!limit) return [command, args];
  const dir = podCgroup(port);
  // A cgroup left by an earlier run on this port would carry its counts over.
  if (existsSync(dir)) rmdirSync(dir);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, CGROUP_V1 ? 'memory.limit_in_bytes' : 'memory.max'), limit);
  return ['sh', ['-c', `echo $$ > ${dir}/cgroup.procs && exec "$@"`, 'sh', command, ...args]];
}

/**
 * The server's pod memory as the kubelet reads it, under BENCH_POD_MEMORY (else undefined): the
 * working set, the cgroup's charge less its inactive file pages (which the kernel reclaims
 * first), in MiB, and how many times the charge has met the limit (the kernel reclaimed then).
 */
export function podMemory(port) {
  if (!process.env.BENCH_POD_MEMORY) return undefined;
  const read = (file) => readFileSync(join(podCgroup(port), file), 'utf8');
  const stat = (name) => Number(new RegExp(`^${name} (\\d+)`, 'm').exec(read('memory.stat'))[1]);
  const usage = Number(read(CGROUP_V1 ? 'memory.usage_in_bytes' : 'memory.current'));
  const inactiveFile = stat(CGROUP_V1 ? 'total_inactive_file' : 'inactive_file');
  return {
    workingSetMb: (usage - inactiveFile) / 2 ** 20,
    limitHits: CGROUP_V1
      ? Number(read('memory.failcnt'))
      : Number(/^max (\d+)/m.exec(read('memory.events'))[1]),
  };
}

/** `NAME=value` words (a value may hold `=`) as environment variables. */
export const environmentOf = (words) =>
  Object.fromEntries(
    words.map((word) => [word.slice(0, word.indexOf('=')), word.slice(word.indexOf('=') + 1)]),
  );

/**
 * The image's Node options (Dockerfile `NODE_OPTIONS`), for the servers whose cost is measured
 * as the pod runs them (npm run bench and its scenario benches).
 */
export const IMAGE_NODE_ARGS = ['--max-old-space-size-percentage=50', '--max-semi-space-size=8'];

/**
 * Starts `node <script>` with a production environment; `ready` resolves once it listens.
 * BENCH_NODE picks another Node binary for the servers (e.g. Node 24's, see docs/performance.md).
 */
export function startServer(script, env, port, nodeArgs = [], { wrapper = [] } = {}) {
  const node = process.env.BENCH_NODE || 'node';
  const traced = nodeArgs.includes('--trace-gc');
  // V8 prints its --trace-gc lines through C's stdio, which fills 4 KiB blocks on a pipe (lines
  // arriving late, cut, and between the access log's own writes): stdbuf writes each whole.
  // `wrapper` runs node under another program (e.g. valgrind: bench/instructions.mjs).
  const [program, ...words] = [
    ...(traced ? ['stdbuf', '-oL'] : []),
    ...wrapper,
    node,
    ...nodeArgs,
    script,
  ];
  const [command, args] = inPodMemory([program, words], port);
  const child = spawn(command, args, {
    cwd: root,
    env: {
      PATH: process.env.PATH,
      NODE_ENV: 'production',
      // The image's allocator setting (Dockerfile).
      MALLOC_ARENA_MAX: '2',
      PORT: String(port),
      // Any free port for the scrape: servers of a run may overlap.
      METRICS_PORT: '0',
      // Measurements are of throughput, not of the flood guard: neither for the key, nor for
      // the soak's wrong keys (a twentieth of its requests: the default 6,000 a minute per IP
      // at 2,000 req/s).
      RATE_LIMIT_PER_KEY: '1000000000',
      RATE_LIMIT_PER_IP: '1000000000',
      // S5 measures what a deep page by number costs, which the default depth cap refuses and
      // the default cap on deep pages at once sheds at 32 connections.
      MAX_PAGE_DEPTH: '1000000000',
      MAX_CONCURRENT_DEEP_PAGES: '1000',
      CURSOR_SECRET: 'bench-cursor-secret-0123456789abcdef',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  // Ready once the port accepts a connection: a server run with LOG_LEVEL=warn prints no
  // "listening on" line. stdout is still read so a chatty server never blocks on it.
  let gc;
  if (traced) gc = gcPauses(child.stdout);
  else child.stdout.resume();
  const ready = new Promise((resolve, reject) => {
    let exited = false;
    child.once('exit', (code) => {
      exited = true;
      reject(new Error(`${script} exited with ${code}`));
    });
    const probe = () => {
      if (exited) return;
      const socket = connect(port, '127.0.0.1');
      socket.once('connect', () => (socket.destroy(), resolve()));
      socket.once('error', () => setTimeout(probe, 100));
    };
    probe();
  });
  const exited = new Promise((resolve) => child.once('exit', resolve));
  return {
    child,
    ready,
    exited,
    port,
    /** Milliseconds the main thread spent collecting garbage, under --trace-gc. */
    get gcPauseMs() {
      return gc?.ms;
    },
    /** Under --trace-gc, the running totals of gcPauses. */
    gc,
  };
}

// A line V8 prints under --trace-gc: `… ms: Scavenge 50.1 (60.2) -> 45.3 (60.2) MB, pooled: 0
// MB, 1.23 / 0.00 ms …`, a full collection adding `(+ 7.9 ms in 75 steps since start of
// marking …` for its incremental steps. Both are time the main thread spent collecting.
const GC_LINE = / ms: .* MB, ([\d.]+) \/ [\d.]+ ms(?:\s+\(\+ ([\d.]+) ms in)?/;

/**
 * Drains a server's stdout, summing the main-thread pauses of the --trace-gc lines in it, and
 * counting the full collections (Mark-Compact) with their pauses (the final one, without the
 * incremental steps before it), the longest since `fullMaxMs` was last set to 0, and those made
 * in V8's memory-reducing mode.
 */
function gcPauses(stdout) {
  const total = { ms: 0, full: 0, reducing: 0, fullMs: 0, fullMaxMs: 0 };
  let partial = '';
  stdout.on('data', (chunk) => {
    const lines = (partial + chunk.toString()).split('\n');
    partial = lines.pop();
    for (const line of lines) {
      const match = GC_LINE.exec(line);
      if (!match) continue;
      const pause = Number(match[1]);
      total.ms += pause + Number(match[2] ?? 0);
      if (!line.includes('Mark-Compact')) continue;
      total.full++;
      // `(reduce)`: V8 compacting harder (longer pauses), e.g. with the old space near its bound.
      if (line.includes('Mark-Compact (reduce)')) total.reducing++;
      total.fullMs += pause;
      total.fullMaxMs = Math.max(total.fullMaxMs, pause);
    }
  });
  return total;
}
