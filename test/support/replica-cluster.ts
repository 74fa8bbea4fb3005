import { execFile, execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { freePort } from '../../src/dev/free-port';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { programPath } from './optional-program';

const run = promisify(execFile);

/**
 * A primary PostgreSQL and a streaming replica made from it with pg_basebackup, both on
 * loopback, in a temporary directory. Uses Debian's PostgreSQL binaries (the embedded
 * package ships no pg_basebackup); as root, runs them as the `postgres` system user, since
 * PostgreSQL refuses to run as root.
 */
export class ReplicaCluster {
  private readonly dir = mkdtempSync(join(tmpdir(), 'links-clients-replica-'));
  private readonly bin = dirname(programPath('pg_basebackup'));
  primaryPort = 0;
  replicaPort = 0;

  url(port: number, database: string): string {
    return `postgres://postgres@127.0.0.1:${port}/${database}`;
  }

  async start(): Promise<void> {
    if (process.getuid?.() === 0) chownSync(this.dir, uid('postgres'), gid('postgres'));
    this.primaryPort = await freePort();
    this.replicaPort = await freePort();
    const primary = join(this.dir, 'primary');
    await this.pg('initdb', [
      '-D',
      primary,
      '-U',
      'postgres',
      '--auth=trust',
      '--no-locale',
      '-E',
      'UTF8',
    ]);
    await this.startServer(primary, this.primaryPort);
    await this.pg('pg_basebackup', [
      ...['-h', '127.0.0.1', '-p', String(this.primaryPort), '-U', 'postgres'],
      ...['-D', join(this.dir, 'replica'), '-R', '-X', 'stream', '-c', 'fast'],
    ]);
    await this.startServer(join(this.dir, 'replica'), this.replicaPort);
  }

  async stopReplica(): Promise<void> {
    await this.pg('pg_ctl', ['-D', join(this.dir, 'replica'), '-m', 'immediate', '-w', 'stop']);
  }

  /** Starts the replica again, on its port, after stopReplica(). */
  async startReplica(): Promise<void> {
    await this.startServer(join(this.dir, 'replica'), this.replicaPort);
  }

  async stop(): Promise<void> {
    for (const node of ['replica', 'primary']) {
      if (existsSync(join(this.dir, node, 'postmaster.pid')))
        await this.pg('pg_ctl', [
          '-D',
          join(this.dir, node),
          '-m',
          'immediate',
          '-w',
          'stop',
        ]).catch(() => undefined);
    }
    rmSync(this.dir, { recursive: true, force: true });
  }

  private startServer(dataDir: string, port: number) {
    const options = `-p ${port} -c listen_addresses=127.0.0.1 -c unix_socket_directories=`;
    return this.pg('pg_ctl', ['-D', dataDir, '-o', options, '-l', `${dataDir}.log`, '-w', 'start']);
  }

  private pg(tool: string, args: string[]) {
    const command = join(this.bin, tool);
    return process.getuid?.() === 0
      ? run('runuser', ['-u', 'postgres', '--', command, ...args], { cwd: this.dir })
      : run(command, args, { cwd: this.dir });
  }
}

const idOf = (flag: string, name: string) =>
  Number(execFileSync('id', [flag, name], { encoding: 'utf8' }));
const uid = (name: string) => idOf('-u', name);
const gid = (name: string) => idOf('-g', name);
