import { Injectable, Logger, OnApplicationShutdown } from '@nestjs/common';
import { Client, Pool, PoolClient, PoolConfig } from 'pg';
import { DataSource } from 'typeorm';
import { PostgresDriver } from 'typeorm/driver/postgres/PostgresDriver';
import { DatabaseEnv } from '../config/database.env';
import { ignoreBreak } from './broken-connection';
import { poolSettings } from './data-source';
import { withLibpqSslMode } from './ssl-mode';
import { STANDBY_AS_PRIMARY } from './standby-as-primary';

/** Hands a connection back to its pool; given an error, the pool drops the connection. */
export type Release = (error?: Error) => void;

export type ReplicaPool = Pool & { options: PoolConfig; name: string };

/** pg-pool's hook for a new connection, before it is first handed out (an error drops it). */
type Verify = (client: Client, done: (error?: Error) => void) => void;

/**
 * The pg pools: the primary's, which TypeORM's PostgresDriver keeps as `master` (typed `any`;
 * this is the one place that reaches in), and one per read replica (DATABASE_REPLICA_URLS),
 * opened here, each on its own: one that is down when the pod starts is no reason not to start.
 *
 * A connection of the primary pool is a primary's: each is checked once, when opened (a standby
 * stays a standby while connected; a primary that turns standby restarts, closing them all), and
 * one that reached a standby — the primary's address still naming the old primary after a
 * failover — is dropped with SQLSTATE 25006, so the next is opened through the address again.
 */
@Injectable()
export class DatabasePools implements OnApplicationShutdown {
  private readonly logger = new Logger(DatabasePools.name);
  private readonly driver: PostgresDriver;
  readonly replicas: ReplicaPool[];
  /** Replicas a background check found not answering (ReplicaChecks). */
  private readonly outOfRotation = new Set<ReplicaPool>();
  private isOnStandby = false;

  constructor(dataSource: DataSource, env: DatabaseEnv) {
    this.driver = dataSource.driver as PostgresDriver;
    const primary = this.driver.master as (Pool & { options: { verify?: Verify } }) | undefined;
    if (primary) primary.options.verify = (client, done) => this.verifyPrimary(client, done);
    this.replicas = env.DATABASE_REPLICA_URLS.map((url, index) => {
      const pool = new Pool({
        connectionString: withLibpqSslMode(url, 'DATABASE_REPLICA_URLS'),
        ...poolSettings(env.DATABASE_TIMEOUT_MS),
      }) as ReplicaPool;
      pool.name = `replica-${index}`;
      // An idle connection the replica drops is replaced by the next checkout.
      pool.on('error', () => undefined);
      return pool;
    });
  }

  async onApplicationShutdown(): Promise<void> {
    await Promise.all(this.replicas.map((pool) => pool.end()));
  }

  get primary(): Pool | undefined {
    return this.driver.master as Pool | undefined;
  }

  /** The primary pool's connection settings. */
  get primaryOptions(): PoolConfig {
    return (this.driver.master as Pool & { options: PoolConfig }).options;
  }

  /** Takes a replica out of the reads' rotation, or puts it back. */
  setInRotation(replica: ReplicaPool, isInRotation: boolean): void {
    if (isInRotation) this.outOfRotation.delete(replica);
    else this.outOfRotation.add(replica);
  }

  /**
   * Checks out a connection to the primary, or where reads belong: a replica in rotation at
   * random when some are configured, else the primary. In callback form, as pg's pools answer:
   * no promise hops between the pool and the query.
   */
  connect(
    target: 'primary' | 'read',
    callback: (error: Error | undefined, connection?: PoolClient, release?: Release) => void,
  ): void {
    const pool = target === 'read' ? (this.readReplica() ?? this.primary) : this.primary;
    if (pool) pool.connect(callback);
    // The pools are gone (the app is shutting down): SQLSTATE 08003, connection does not exist,
    // which every check of a database error reads as the database being unavailable.
    else callback(Object.assign(new Error('The database is not connected'), { code: '08003' }));
  }

  private readReplica(): Pool | undefined {
    const replicas = this.replicas;
    if (replicas.length === 0) return undefined;
    const serving =
      this.outOfRotation.size === 0
        ? replicas
        : replicas.filter((replica) => !this.outOfRotation.has(replica));
    return serving[Math.floor(Math.random() * serving.length)];
  }

  private verifyPrimary(client: Client, done: (error?: Error) => void): void {
    // pg-pool stops listening before `verify`, and whoever asked for the connection (the reader,
    // TypeORM's query runner) listens only after `done`: until then, this one hears a break.
    client.on('error', ignoreBreak);
    client.query('SELECT pg_is_in_recovery() AS standby', (error, result) => {
      client.removeListener('error', ignoreBreak);
      if (error) return done(error);
      const isStandby = (result.rows[0] as { standby: boolean }).standby;
      // Said once when the address first reaches a standby, once when it reaches a primary again.
      if (isStandby && !this.isOnStandby) this.logger.error(STANDBY_AS_PRIMARY);
      if (!isStandby && this.isOnStandby) this.logger.log('DATABASE_URL reaches the primary again');
      this.isOnStandby = isStandby;
      done(isStandby ? Object.assign(new Error(STANDBY_AS_PRIMARY), { code: '25006' }) : undefined);
    });
  }
}
