// `npm run bench:instructions`: the machine instructions a server runs per S1 request (get a
// client by id), ours against the NestJS floor (bench/nest-reference.mjs), counted by valgrind's
// callgrind: user-space instructions of every thread (GC helpers included), not the kernel's
// (the two servers make the same system calls per request). A count, not a time: it holds on a
// busy machine, where CPU per request moves from run to run. Requests go one at a time
// (BENCH_CONNECTIONS): with several in flight the count follows how they batch per event-loop
// turn, which timing decides.
// BENCH_SERVER_SCRIPT (e.g. `dist/main.js,/tmp/base/dist/main.js`) counts other builds too, and
// NAME=value words after a script set its environment (`dist/main.js LOG_LEVEL=warn`).
import { spawnSync, execFileSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { Agent, get } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { API_KEY } from './measure.mjs';
import {
  build,
  createDatabase,
  environmentOf,
  freePort,
  loadData,
  startServer,
  IMAGE_NODE_ARGS,
} from './support.mjs';

const settings = {
  clients: 20_000,
  links: 200,
  warmUp: Number(process.env.BENCH_WARM_UP ?? 10_000),
  requests: Number(process.env.BENCH_REQUESTS ?? 10_000),
  connections: Number(process.env.BENCH_CONNECTIONS ?? 1),
  scripts: (process.env.BENCH_SERVER_SCRIPT ?? 'dist/main.js').split(','),
};
const FLOOR = 'bench/nest-reference.mjs';
const log = (message) => console.log(`[bench] ${message}`);

/** `count` gets of clients by id, in the same order for every server, `connections` at a time. */
async function gets(port, count, connections) {
  const agent = new Agent({ keepAlive: true, maxSockets: connections });
  let next = 0;
  const one = (index) =>
    new Promise((resolve, reject) => {
      const id = `client-${1 + ((index * 7919) % settings.clients)}`;
      const request = get(
        {
          host: '127.0.0.1',
          port,
          agent,
          path: `/api/data/clients/${id}`,
          headers: { authorization: `Bearer ${API_KEY}` },
        },
        (response) => {
          if (response.statusCode !== 200) reject(new Error(`${id}: ${response.statusCode}`));
          response.resume().on('end', resolve);
        },
      );
      request.on('error', reject);
    });
  const worker = async () => {
    while (next < count) await one(next++);
  };
  await Promise.all(Array.from({ length: connections }, worker));
  agent.destroy();
}

/** The instructions counted since callgrind's counters were last zeroed, dumped now. */
function dumpedInstructions(pid, directory) {
  const before = new Set(readdirSync(directory));
  execFileSync('callgrind_control', ['--dump', String(pid)], { stdio: 'ignore' });
  const [dump] = readdirSync(directory).filter((file) => !before.has(file));
  const totals = /^(?:summary|totals): (\d+)/m.exec(readFileSync(join(directory, dump), 'utf8'));
  // BENCH_CALLGRIND_DIR keeps the dump, to read by function (callgrind_annotate).
  if (process.env.BENCH_CALLGRIND_DIR)
    copyFileSync(join(directory, dump), join(process.env.BENCH_CALLGRIND_DIR, `${pid}.out`));
  return Number(totals[1]);
}

async function count(variant, databaseUrl) {
  const [script, ...words] = variant.split(' ').filter(Boolean);
  const directory = mkdtempSync(join(tmpdir(), 'links-clients-callgrind-'));
  const server = startServer(
    script,
    {
      DATABASE_URL: databaseUrl,
      API_KEYS: API_KEY,
      SHUTDOWN_DRAIN_DELAY_MS: '0',
      ...environmentOf(words),
    },
    await freePort(),
    IMAGE_NODE_ARGS,
    { wrapper: ['valgrind', '-q', '--tool=callgrind', `--callgrind-out-file=${directory}/cg.out`] },
  );
  try {
    await server.ready;
    await gets(server.port, settings.warmUp, settings.connections);
    execFileSync('callgrind_control', ['--zero', String(server.child.pid)], { stdio: 'ignore' });
    await gets(server.port, settings.requests, settings.connections);
    return dumpedInstructions(server.child.pid, directory) / settings.requests;
  } finally {
    server.child.kill('SIGKILL');
    rmSync(directory, { recursive: true, force: true });
  }
}

async function main() {
  if (spawnSync('valgrind', ['--version']).error) {
    console.log('bench:instructions needs valgrind (apt install valgrind)');
    return;
  }
  log(`settings ${JSON.stringify(settings)}`);
  build();
  const database = await createDatabase('instructions');
  try {
    await loadData(database.url, settings);
    // Two at a time: a count does not depend on what else runs.
    const counts = [];
    const servers = [...settings.scripts, FLOOR];
    for (let index = 0; index < servers.length; index += 2) {
      const pair = servers.slice(index, index + 2);
      log(`${pair.join(' and ')} under callgrind`);
      const perRequest = await Promise.all(pair.map((variant) => count(variant, database.url)));
      counts.push(...pair.map((variant, at) => [variant, perRequest[at]]));
    }
    const floor = counts.at(-1)[1];
    console.log(
      [
        '',
        `Instructions per S1 request (get a client by id), ${settings.requests} requests after ${settings.warmUp}, ${settings.connections} connections, the image's Node options, callgrind.`,
        '',
        '| server | instructions per request | ÷ NestJS floor |',
        '|---|---:|---:|',
        ...counts.map(
          ([script, perRequest]) =>
            `| ${script} | ${Math.round(perRequest).toLocaleString('en')} | ${(perRequest / floor).toFixed(2)}× |`,
        ),
      ].join('\n'),
    );
  } finally {
    await database.drop();
  }
}

await main();
