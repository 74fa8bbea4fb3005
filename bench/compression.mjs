// What compression costs on List Links: server CPU per request and bytes on the wire, for
// identity, gzip and br. Used by run.mjs; `node bench/compression.mjs` runs it alone on a fresh
// database of BENCH_LINKS links (default 10,000).
import { get } from 'node:http';
import { readFileSync } from 'node:fs';
import { pathToFileURL } from 'node:url';
import { API_KEY } from './measure.mjs';
import {
  build,
  createDatabase,
  freePort,
  insertLinksSql,
  runSql,
  startServer,
} from './support.mjs';

const TICKS_PER_SECOND = 100; // Linux's USER_HZ, the unit of /proc/<pid>/stat times

function cpuMs(pid) {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND; // utime + stime
}

function wireBytes(port, path, headers) {
  return new Promise((resolve, reject) => {
    get({ host: '127.0.0.1', port, path, headers, agent: false }, (res) => {
      let bytes = 0;
      res.on('data', (chunk) => (bytes += chunk.length));
      res.on('end', () => resolve({ bytes, encoding: res.headers['content-encoding'] }));
    }).on('error', reject);
  });
}

/** Sequential requests per encoding, so the server's CPU time is theirs alone. */
export async function compressionCost({
  port,
  pid,
  apiKey,
  path = '/api/data/links',
  requests = 40,
}) {
  const rows = [];
  for (const encoding of ['identity', 'gzip', 'br']) {
    const headers = { authorization: `Bearer ${apiKey}`, 'accept-encoding': encoding };
    for (let i = 0; i < 3; i++) await wireBytes(port, path, headers);
    const [cpuBefore, started] = [cpuMs(pid), performance.now()];
    let sample;
    for (let i = 0; i < requests; i++) sample = await wireBytes(port, path, headers);
    rows.push({
      encoding,
      sent: sample.encoding ?? 'identity',
      wireBytes: sample.bytes,
      serverCpuMsPerRequest: +((cpuMs(pid) - cpuBefore) / requests).toFixed(2),
      latencyMs: +((performance.now() - started) / requests).toFixed(2),
    });
  }
  return rows;
}

async function standalone() {
  const links = Number(process.env.BENCH_LINKS ?? 10_000);
  build();
  const database = await createDatabase('bench_compression');
  const server = startServer(
    'dist/main.js',
    { DATABASE_URL: database.url, API_KEYS: API_KEY },
    await freePort(),
  );
  try {
    await runSql(database.url, insertLinksSql(links));
    await server.ready;
    const rows = await compressionCost({
      port: server.port,
      pid: server.child.pid,
      apiKey: API_KEY,
    });
    console.log(`List Links, ${links} links, sequential requests:`);
    console.table(rows);
  } finally {
    server.child.kill();
    await server.exited;
    await database.drop();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) await standalone();
