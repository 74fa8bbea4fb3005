// What the bench measures for one load run against one server: requests/s and latency
// (autocannon), the server's CPU time and the database backends' CPU time per request (from
// /proc, steadier than requests/s on a shared machine; its threads other than the main one
// apart), the main thread's garbage-collection pauses per request (for a server started under
// --trace-gc) and the server's peak resident memory.
// Bench modules (bench/*.mjs) use `measure` for their own scenarios.
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import autocannon from 'autocannon';
import pg from 'pg';

// The production start refuses keys under 32 characters.
export const API_KEY = randomBytes(24).toString('base64url');
const TICK_MS = 1000 / Number(execFileSync('getconf', ['CLK_TCK']).toString());

/**
 * User + system CPU milliseconds of a process (all its threads), or of its main thread alone
 * (`mainThread`), or undefined if unreadable.
 */
export function cpuMs(pid, { mainThread = false } = {}) {
  try {
    const stat = readFileSync(`/proc/${pid}/${mainThread ? `task/${pid}/` : ''}stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * TICK_MS;
  } catch {
    return undefined;
  }
}

/**
 * A memory field of a process's status (`VmRSS`, `VmHWM`, `RssAnon`) in MiB (printed "MB"); 0
 * once it has exited (a server that died shows as errors instead).
 */
function statusMb(pid, field) {
  try {
    const match = new RegExp(`${field}:\\s+(\\d+) kB`).exec(
      readFileSync(`/proc/${pid}/status`, 'utf8'),
    );
    return match ? Number(match[1]) / 1024 : 0;
  } catch {
    return 0;
  }
}

/** Resident MB of a process now. */
export const rssMb = (pid) => statusMb(pid, 'VmRSS');

/** The peak resident MB of a process so far. */
export const peakRssMb = (pid) => statusMb(pid, 'VmHWM');

/**
 * Resident MB of a process's private memory now (RssAnon): its heap, native allocations and
 * stacks, without the pages it maps from files (Node's own code, ~60 MB: shared with every
 * process of that binary, and reclaimable, so the kernel drops them before it would kill a pod).
 */
export const privateRssMb = (pid) => statusMb(pid, 'RssAnon');

/** The highest `read(pid)` from now until the returned function is called, which returns it. */
export function peakOf(read, pid) {
  let peak = read(pid);
  const timer = setInterval(() => (peak = Math.max(peak, read(pid))), 50);
  return () => {
    clearInterval(timer);
    return Math.max(peak, read(pid));
  };
}

/** Counters or gauges of a server's metrics, each summed over its labels, from one scrape. */
export async function scrapeMetrics(metricsPort, ...names) {
  const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  return names.map((name) =>
    [...text.matchAll(new RegExp(`^${name}(?:\\{[^}]*\\})? ([\\d.e+-]+)`, 'gm'))].reduce(
      (sum, [, value]) => sum + Number(value),
      0,
    ),
  );
}

/** One counter or gauge of a server's metrics, summed over its labels. */
export const scrapeMetric = async (metricsPort, name) =>
  (await scrapeMetrics(metricsPort, name))[0];

/**
 * CPU milliseconds of every backend of the database, by pid. Only one server is under load at
 * a time, so the difference of two snapshots is that server's database work (a backend that
 * ended between them is missed; pools keep theirs). Autovacuum's workers are not the load's work.
 * Needs PostgreSQL on this machine.
 */
export async function databaseCpu(url) {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query(
      `SELECT pid FROM pg_stat_activity
       WHERE datname = current_database() AND pid <> pg_backend_pid() AND backend_type <> 'autovacuum worker'`,
    );
    return new Map(rows.map(({ pid }) => [pid, cpuMs(pid)]));
  } finally {
    await client.end();
  }
}

export function databaseCpuSince(before, after) {
  let total = 0;
  for (const [pid, ms] of after) {
    if (ms === undefined) return undefined;
    total += ms - (before.get(pid) ?? 0);
  }
  return total;
}

/** One autocannon run; `paths()` gives each request's path. */
export async function load(port, paths, { connections, seconds, headers = {} }) {
  const result = await autocannon({
    url: `http://127.0.0.1:${port}`,
    connections,
    duration: seconds,
    headers: { authorization: `Bearer ${API_KEY}`, ...headers },
    requests: [{ setupRequest: (request) => ({ ...request, path: paths() }) }],
  });
  return {
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.non2xx + result.errors + result.timeouts,
    requests: result.requests.total,
  };
}

/** A load run against `server` with its CPU, its database's CPU and its peak RSS. */
export async function measure(server, databaseUrl, paths, options) {
  const pid = server.child.pid;
  const peakRss = peakOf(rssMb, pid);
  const cpuNow = () => ({ all: cpuMs(pid), main: cpuMs(pid, { mainThread: true }) });
  const [cpuBefore, databaseBefore] = [cpuNow(), await databaseCpu(databaseUrl)];
  const gcBefore = server.gcPauseMs;
  try {
    const result = await load(server.port, paths, options);
    const databaseAfter = await databaseCpu(databaseUrl);
    const cpuAfter = cpuNow();
    const perRequest = (ms) => (ms === undefined ? undefined : (1000 * ms) / result.requests);
    return {
      ...result,
      cpuUs: perRequest(cpuAfter.all - cpuBefore.all),
      // The threads beside the main one: V8's (collecting garbage, compiling) and libuv's pool
      // (our log's writes).
      otherThreadsCpuUs: perRequest(
        cpuAfter.all - cpuAfter.main - (cpuBefore.all - cpuBefore.main),
      ),
      databaseCpuUs: perRequest(databaseCpuSince(databaseBefore, databaseAfter)),
      gcPauseUs: gcBefore === undefined ? undefined : perRequest(server.gcPauseMs - gcBefore),
      peakRss: peakRss(),
    };
  } finally {
    // Stops the sampler when the load failed too.
    peakRss();
  }
}
