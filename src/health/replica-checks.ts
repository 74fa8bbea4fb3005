import { Injectable, Logger, OnApplicationBootstrap, OnApplicationShutdown } from '@nestjs/common';
import { Gauge, Registry } from 'prom-client';
import { OperationsEnv } from '../config/operations.env';
import { DatabasePools, ReplicaPool } from '../database/pools';
import { selectOne } from '../database/broken-connection';

/** How often each read replica is asked whether it answers. */
export const CHECK_REPLICAS_EVERY_MS = 1000;

/**
 * Keeps the reads' rotation to the replicas that answer (docs/operations.md, "High
 * availability"): in the background, never on a request's path, each replica gets a `SELECT 1`
 * on one of its pooled connections every CHECK_REPLICAS_EVERY_MS, within HEALTH_TIMEOUT_MS. One
 * that does not answer (refused, shut down, silent) leaves the rotation at once, its reads going
 * to the others or to the primary; it comes back with its first answer. Each change is one log
 * line and the gauge `database_replica_up{replica}`; readiness does not depend on replicas.
 */
@Injectable()
export class ReplicaChecks implements OnApplicationBootstrap, OnApplicationShutdown {
  private readonly logger = new Logger(ReplicaChecks.name);
  private readonly up: Gauge<'replica'>;
  private readonly answering = new Map<ReplicaPool, boolean>();
  private timer?: NodeJS.Timeout;
  private checking?: Promise<void>;

  constructor(
    private readonly pools: DatabasePools,
    private readonly env: OperationsEnv,
    registry: Registry,
  ) {
    this.up = new Gauge({
      name: 'database_replica_up',
      help: '1 while the read replica answers and takes reads, 0 while it is out of rotation',
      labelNames: ['replica'],
      registers: [registry],
    });
  }

  /** The first check before the pod serves, so reads never go to a replica known down. */
  async onApplicationBootstrap(): Promise<void> {
    if (this.pools.replicas.length === 0) return;
    await this.checkAll();
    this.timer = setInterval(() => void this.checkAll(), CHECK_REPLICAS_EVERY_MS).unref();
  }

  async onApplicationShutdown(): Promise<void> {
    clearInterval(this.timer);
    await this.checking;
  }

  private checkAll(): Promise<void> {
    this.checking ??= Promise.all(this.pools.replicas.map((replica) => this.check(replica)))
      .then(() => undefined)
      .finally(() => (this.checking = undefined));
    return this.checking;
  }

  private async check(replica: ReplicaPool): Promise<void> {
    let failure: Error | undefined;
    try {
      await selectOne(replica, this.env.HEALTH_TIMEOUT_MS);
    } catch (error) {
      failure = error as Error;
    }
    const wasAnswering = this.answering.get(replica);
    const isAnswering = failure === undefined;
    this.answering.set(replica, isAnswering);
    this.up.set({ replica: replica.name }, isAnswering ? 1 : 0);
    this.pools.setInRotation(replica, isAnswering);
    if (wasAnswering !== false && !isAnswering) {
      this.logger.warn(
        `${replica.name} out of rotation (${failure!.message}): its reads go to the other replicas, or the primary`,
      );
    } else if (wasAnswering === false && isAnswering) {
      this.logger.log(`${replica.name} answers again: back in rotation`);
    }
  }
}
