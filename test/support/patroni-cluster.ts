import { ChildProcess, execFile, execFileSync, spawn } from 'node:child_process';
import {
  chownSync,
  closeSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { freePort } from '../../src/dev/free-port';
import { programPath } from './optional-program';
import { testClient } from './pg-client';
import { waitFor } from './wait-for';

const run = promisify(execFile);

interface PatroniNode {
  name: string;
  pgPort: number;
  restPort: number;
  config: string;
  dataDir: string;
  process?: ChildProcess;
}

/**
 * What our users run in front of PostgreSQL that fails over: a two-node Patroni cluster
 * (synchronous replication, pg_rewind) on etcd, behind HAProxy routing to the leader by
 * Patroni's REST check (GET /primary), as Patroni's own example configures it. On loopback, in a
 * temporary directory; as root, PostgreSQL's side runs as the `postgres` system user.
 */
export class PatroniCluster {
  private readonly dir = mkdtempSync(join(tmpdir(), 'links-clients-patroni-'));
  private readonly nodes: PatroniNode[] = [];
  private etcd?: ChildProcess;
  private haproxy?: ChildProcess;
  port = 0;

  /** A database's URL through HAProxy: the name that follows the leader. */
  url(database: string): string {
    return `postgres://postgres@127.0.0.1:${this.port}/${database}`;
  }

  async start(): Promise<void> {
    if (process.getuid?.() === 0) chownSync(this.dir, idOf('-u'), idOf('-g'));
    const [clientPort, peerPort] = [await freePort(), await freePort()];
    this.etcd = this.spawnAsPostgres(
      programPath('etcd'),
      [
        ...['--name', 'etcd', '--data-dir', join(this.dir, 'etcd')],
        ...['--listen-client-urls', `http://127.0.0.1:${clientPort}`],
        ...['--advertise-client-urls', `http://127.0.0.1:${clientPort}`],
        ...['--listen-peer-urls', `http://127.0.0.1:${peerPort}`],
        ...['--initial-advertise-peer-urls', `http://127.0.0.1:${peerPort}`],
        ...['--initial-cluster', `etcd=http://127.0.0.1:${peerPort}`, '--enable-v2=true'],
      ],
      'etcd',
    );
    await waitFor(() => answers(`http://127.0.0.1:${clientPort}/health`), { what: 'etcd' });
    // The first node becomes the primary, the second its replica. Each node's ports are taken
    // just before it starts: ports left unused meanwhile could go to another suite.
    for (const [name, role] of [
      ['n1', 'primary'],
      ['n2', 'replica'],
    ] as const) {
      const node = { name, pgPort: await freePort(), restPort: await freePort() };
      const dataDir = join(this.dir, name);
      const config = join(this.dir, `${name}.yml`);
      writeFileSync(config, patroniConfig({ ...node, dataDir, dir: this.dir, etcd: clientPort }));
      this.nodes.push({ ...node, dataDir, config });
      this.startNode(this.nodes.at(-1)!);
      await this.waitForRole(this.nodes.at(-1)!, role, 60000);
    }
    this.port = await freePort();
    const haproxyConfig = join(this.dir, 'haproxy.cfg');
    writeFileSync(haproxyConfig, haproxyConfigFor(this.port, this.nodes));
    this.haproxy = spawn(programPath('haproxy'), ['-db', '-f', haproxyConfig], {
      stdio: 'ignore',
    });
    // HAProxy takes every server as up until its checks say otherwise: until then some
    // connections reach the replica.
    await waitFor(
      async () => {
        for (let n = 0; n < 6; n++) if (!(await this.leaderByHaproxy())) return false;
        return true;
      },
      { what: 'HAProxy to route to the leader only' },
    );
  }

  /** The node whose REST API says it is the primary, if one does. */
  async leader(): Promise<string | undefined> {
    for (const node of this.nodes) {
      if (await answers(`http://127.0.0.1:${node.restPort}/primary`)) return node.name;
    }
    return undefined;
  }

  /** `patronictl switchover` from the leader to the other node; resolves once it is done. */
  async switchover(): Promise<string> {
    const leader = (await this.leader())!;
    const candidate = this.nodes.find((node) => node.name !== leader)!;
    // In synchronous mode Patroni hands the lead only to the synchronous standby.
    await this.synchronous(candidate.name);
    await run(programPath('patronictl'), [
      ...['-c', candidate.config, 'switchover'],
      ...['--leader', leader, '--candidate', candidate.name, '--force'],
    ]);
    await this.waitForRole(candidate, 'primary', 30000);
    return candidate.name;
  }

  /** Waits until `name` is the synchronous standby: the one Patroni may promote without loss. */
  async synchronous(name: string): Promise<void> {
    const node = this.nodes.find((candidate) => candidate.name === name)!;
    await waitFor(() => answers(`http://127.0.0.1:${node.restPort}/sync`), {
      what: `${name} as the synchronous standby`,
      timeoutMs: 60000,
      intervalMs: 100,
    });
  }

  /**
   * A crash of the leader's machine: SIGKILL of its Patroni and of its PostgreSQL's postmaster.
   * The other node is promoted once the leader key expires (ttl).
   */
  crashLeaderNow(leader: string): void {
    const node = this.nodes.find(({ name }) => name === leader)!;
    node.process?.kill('SIGKILL');
    const postmaster = Number(
      readFileSync(join(node.dataDir, 'postmaster.pid'), 'utf8').split('\n')[0],
    );
    process.kill(postmaster, 'SIGKILL');
  }

  /** Waits until `name` is the primary; returns when it was first seen so. */
  async promoted(name: string): Promise<number> {
    await this.waitForRole(
      this.nodes.find((node) => node.name === name)!,
      'primary',
      60000,
    );
    return performance.now();
  }

  /** Starts a crashed node again: it rejoins as a replica (pg_rewind). */
  restart(name: string): void {
    this.startNode(this.nodes.find((node) => node.name === name)!);
  }

  async stop(): Promise<void> {
    this.haproxy?.kill('SIGKILL');
    await Promise.all(this.nodes.map((node) => stopped(node.process, 'SIGTERM')));
    await stopped(this.etcd, 'SIGTERM');
    for (const node of this.nodes) {
      // A PostgreSQL Patroni could not stop (its Patroni killed): stopped here.
      await run('pkill', ['-KILL', '-f', `-D ${node.dataDir}`]).catch(() => undefined);
    }
    if (process.env.KEEP_PATRONI_LOGS) return;
    rmSync(this.dir, { recursive: true, force: true });
  }

  private startNode(node: PatroniNode): void {
    node.process = this.spawnAsPostgres(programPath('patroni'), [node.config], node.name);
  }

  private waitForRole(node: PatroniNode, role: 'primary' | 'replica', timeoutMs: number) {
    return waitFor(() => answers(`http://127.0.0.1:${node.restPort}/${role}`), {
      // On a timeout, the end of the node's log says why.
      what: () =>
        `${node.name} as ${role}; its log ends:\n${readFileSync(join(this.dir, `${node.name}.log`), 'utf8').slice(-3000)}`,
      timeoutMs,
      intervalMs: 100,
    });
  }

  private async leaderByHaproxy(): Promise<boolean> {
    const client = testClient({
      connectionString: this.url('postgres'),
      connectionTimeoutMillis: 1000,
    });
    try {
      await client.connect();
      const { rows } = await client.query('SELECT NOT pg_is_in_recovery() AS primary');
      return rows[0].primary as boolean;
    } catch {
      return false;
    } finally {
      await client.end().catch(() => undefined);
    }
  }

  /** Runs `command` (as `postgres` when root), its output appended to `<dir>/<log>.log`. */
  private spawnAsPostgres(command: string, args: string[], log: string): ChildProcess {
    const output = openSync(join(this.dir, `${log}.log`), 'a');
    const asPostgres = process.getuid?.() === 0 ? { uid: idOf('-u'), gid: idOf('-g') } : {};
    const child = spawn(command, args, {
      ...asPostgres,
      cwd: this.dir,
      env: { PATH: process.env.PATH, HOME: this.dir, LANG: 'C.UTF-8' },
      stdio: ['ignore', output, output],
    });
    closeSync(output);
    return child;
  }
}

async function answers(url: string): Promise<boolean> {
  try {
    return (await fetch(url, { signal: AbortSignal.timeout(1000) })).status === 200;
  } catch {
    return false;
  }
}

function stopped(child: ChildProcess | undefined, signal: NodeJS.Signals): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    child.once('exit', () => resolve());
    child.kill(signal);
  });
}

const idOf = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }));

interface NodeSettings {
  name: string;
  pgPort: number;
  restPort: number;
  dataDir: string;
  dir: string;
  etcd: number;
}

/** A node's Patroni configuration: short timings, so a failover takes seconds. */
const patroniConfig = (node: NodeSettings) => `
scope: links-clients
namespace: /links-clients/
name: ${node.name}
restapi:
  listen: 127.0.0.1:${node.restPort}
  connect_address: 127.0.0.1:${node.restPort}
etcd:
  host: 127.0.0.1:${node.etcd}
bootstrap:
  dcs:
    ttl: 10
    loop_wait: 2
    retry_timeout: 3
    maximum_lag_on_failover: 1048576
    synchronous_mode: true
    postgresql:
      use_pg_rewind: true
      parameters:
        wal_log_hints: 'on'
  initdb:
    - encoding: UTF8
    - locale: C
  pg_hba:
    - host replication all 127.0.0.1/32 trust
    - host all all 127.0.0.1/32 trust
postgresql:
  listen: 127.0.0.1:${node.pgPort}
  connect_address: 127.0.0.1:${node.pgPort}
  data_dir: ${node.dataDir}
  bin_dir: ${binDir()}
  pgpass: ${join(node.dir, `${node.name}.pgpass`)}
  authentication:
    replication:
      username: postgres
    superuser:
      username: postgres
    rewind:
      username: postgres
  parameters:
    unix_socket_directories: ${node.dir}
`;

/** HAProxy to the leader, as Patroni's documentation has it: the REST check, sessions cut. */
const haproxyConfigFor = (port: number, nodes: PatroniNode[]) => `
global
  maxconn 200
defaults
  mode tcp
  timeout connect 2s
  timeout client 30m
  timeout server 30m
  timeout check 1s
listen primary
  bind 127.0.0.1:${port}
  option httpchk GET /primary
  http-check expect status 200
  default-server inter 1s fall 2 rise 2 on-marked-down shutdown-sessions
${nodes.map((node) => `  server ${node.name} 127.0.0.1:${node.pgPort} maxconn 100 check port ${node.restPort}`).join('\n')}
`;

const binDir = () => join(programPath('pg_basebackup'), '..');
