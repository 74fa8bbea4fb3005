import { ChildProcess, spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import { freePort } from '../../src/dev/free-port';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { programPath } from './optional-program';
import { waitFor } from './wait-for';

/**
 * Debian's PgBouncer in transaction mode in front of `serverUrl`'s server, on a free loopback
 * port, with a pool of `poolSize` server connections (small, so transactions change
 * connections). Clients are trusted; PgBouncer logs in with the URL's user and password.
 */
export class PgBouncer {
  private readonly dir = mkdtempSync(join(tmpdir(), 'links-clients-pgbouncer-'));
  private process?: ChildProcess;
  port = 0;

  constructor(
    private readonly serverUrl: string,
    private readonly settings: { poolSize: number; ignoreStartupParameters: string[] },
  ) {}

  /** `url` with its host and port replaced by PgBouncer's. */
  url(url: string): string {
    const through = new URL(url);
    through.host = `127.0.0.1:${this.port}`;
    return through.toString();
  }

  async start(): Promise<void> {
    const server = new URL(this.serverUrl);
    this.port = await freePort();
    chmodSync(this.dir, 0o755);
    const users = join(this.dir, 'users.txt');
    writeFileSync(users, `"${server.username}" "${decodeURIComponent(server.password)}"\n`);
    const ini = join(this.dir, 'pgbouncer.ini');
    writeFileSync(
      ini,
      [
        '[databases]',
        `* = host=${server.hostname} port=${server.port || 5432}`,
        '[pgbouncer]',
        'listen_addr = 127.0.0.1',
        `listen_port = ${this.port}`,
        'unix_socket_dir =',
        'auth_type = trust',
        `auth_file = ${users}`,
        'pool_mode = transaction',
        `default_pool_size = ${this.settings.poolSize}`,
        `ignore_startup_parameters = ${this.settings.ignoreStartupParameters.join(', ')}`,
      ].join('\n'),
    );
    // PgBouncer refuses to run as root; -u makes it switch to the postgres user.
    const asRoot = process.getuid?.() === 0 ? ['-u', 'postgres'] : [];
    this.process = spawn(programPath('pgbouncer'), [...asRoot, ini], { stdio: 'ignore' });
    await waitForPort(this.port);
  }

  async stop(): Promise<void> {
    const child = this.process;
    if (child && child.exitCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGINT');
      await exited;
    }
    rmSync(this.dir, { recursive: true, force: true });
  }
}

async function waitForPort(port: number): Promise<void> {
  await waitFor(
    () =>
      new Promise<boolean>((resolve) => {
        const socket = connect(port, '127.0.0.1');
        const done = (isUp: boolean) => (socket.destroy(), resolve(isUp));
        socket.once('connect', () => done(true)).once('error', () => done(false));
      }),
    { what: `PgBouncer to listen on ${port}` },
  );
}
