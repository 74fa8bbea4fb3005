import { accessSync, constants, existsSync, readdirSync } from 'node:fs';
import { delimiter, join } from 'node:path';

type Env = NodeJS.ProcessEnv;

/** The programs some tests spawn that npm does not install, each with where it is looked for. */
const PROGRAMS = {
  chromium: { install: 'apt-get install chromium', find: (env: Env) => chromium(env) },
  kubectl: { install: 'apt-get install kubectl', find: (env: Env) => onPath('kubectl', env) },
  openssl: { install: 'apt-get install openssl', find: (env: Env) => onPath('openssl', env) },
  pgbouncer: { install: 'apt-get install pgbouncer', find: () => file('/usr/sbin/pgbouncer') },
  pg_basebackup: { install: 'apt-get install postgresql', find: () => postgresServerTool() },
  prometheus: {
    install: 'apt-get install prometheus',
    find: (env: Env) => onPath('prometheus', env),
  },
  promtool: { install: 'apt-get install prometheus', find: (env: Env) => onPath('promtool', env) },
  psql: { install: 'apt-get install postgresql-client', find: (env: Env) => onPath('psql', env) },
  'redis-server': {
    install: 'apt-get install redis-server',
    find: (env: Env) => onPath('redis-server', env),
  },
  // The failover stack: Patroni (with patronictl), its etcd, and HAProxy in front.
  patroni: { install: 'apt-get install patroni', find: () => file('/usr/bin/patroni') },
  patronictl: { install: 'apt-get install patroni', find: () => file('/usr/bin/patronictl') },
  etcd: { install: 'apt-get install etcd-server', find: () => file('/usr/bin/etcd') },
  haproxy: { install: 'apt-get install haproxy', find: () => file('/usr/sbin/haproxy') },
};
export type Program = keyof typeof PROGRAMS;

/**
 * Where `program` is, or undefined. OPTIONAL_PROGRAMS narrows what counts as installed: `none`,
 * or a comma-separated list of names (so a run can prove the path of a machine without them).
 */
export function findProgram(program: Program, env: Env = process.env): string | undefined {
  const allowed = env.OPTIONAL_PROGRAMS?.trim();
  if (allowed && !allowed.split(',').some((name) => name.trim() === program)) return undefined;
  return PROGRAMS[program].find(env);
}

/** The one line saying what is missing and how to install it, or undefined when all are there. */
export function missingLine(programs: Program[], env: Env = process.env): string | undefined {
  const missing = programs.filter((program) => !findProgram(program, env));
  if (missing.length === 0) return undefined;
  // One package may hold several programs (prometheus and promtool): named once.
  const install = [...new Set(missing.map((program) => PROGRAMS[program].install))].join('; ');
  return `needs ${missing.join(', ')} — ${install}`;
}

/**
 * Whether tests needing `programs` run: yes when installed; outside CI no, after one line on
 * stderr; under CI=true a missing program is an error, so CI cannot go green by skipping.
 */
export function programsInstalled(programs: Program[], what: string, env: Env = process.env) {
  const line = missingLine(programs, env);
  if (!line) return true;
  if (env.CI === 'true') throw new Error(`${what}: ${line} (required under CI=true)`);
  process.stderr.write(`${what}: skipped: ${line}\n`);
  return false;
}

/** `describe(name, fn)` when `programs` are installed, else skipped as programsInstalled says. */
export function describeWith(programs: Program[], name: string, fn: () => void): void {
  if (programsInstalled(programs, name)) describe(name, fn);
  // fn is not even called: a suite may run a program while its tests are collected.
  else describe.skip(name, () => it(`skipped: ${missingLine(programs)}`, () => undefined));
}

/** `it(name, fn, timeout)` when `programs` are installed, else skipped as programsInstalled says. */
export function itWith(
  programs: Program[],
  name: string,
  fn: () => Promise<unknown>,
  timeout?: number,
): void {
  (programsInstalled(programs, name) ? it : it.skip)(name, fn, timeout);
}

/** The path of a program a suite checked for with describeWith or itWith. */
export function programPath(program: Program): string {
  const found = findProgram(program);
  if (!found) throw new Error(missingLine([program]));
  return found;
}

function chromium(env: Env): string | undefined {
  return file(env.CHROMIUM_PATH ?? '/usr/bin/chromium');
}

function onPath(name: string, env: Env): string | undefined {
  for (const dir of (env.PATH ?? '').split(delimiter).filter(Boolean)) {
    const found = file(join(dir, name));
    if (found) return found;
  }
  return undefined;
}

function file(path: string): string | undefined {
  try {
    accessSync(path, constants.X_OK);
    return path;
  } catch {
    return undefined;
  }
}

// Debian keeps the server tools beside each other in /usr/lib/postgresql/<major>/bin.
function postgresServerTool(): string | undefined {
  const root = '/usr/lib/postgresql';
  const majors = existsSync(root) ? readdirSync(root).sort((a, b) => Number(b) - Number(a)) : [];
  return majors.map((major) => file(join(root, major, 'bin/pg_basebackup'))).find(Boolean);
}
