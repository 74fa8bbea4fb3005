import { Logger } from '@nestjs/common';
import { Pool, PoolConfig } from 'pg';
import { selectOne } from '../database/broken-connection';

// Probes from the kubelet and load balancers arrive together: they share one recent answer.
export const PING_CACHE_MS = 500;

export interface PingResult {
  isUp: boolean;
  responseTime: number;
}

/**
 * Pings one database on a connection of its own, outside the pool the requests use: a pool
 * busy with slow queries is a loaded service, not a dead one, and must not fail readiness on
 * every replica at once. At most one ping runs at a time; its answer is reused for PING_CACHE_MS.
 * Why a ping failed goes to the log only: the probe's body names no host, user or driver text.
 */
export class DatabasePing {
  private readonly logger = new Logger(DatabasePing.name);
  private readonly pool: Pool;
  private pending?: Promise<PingResult>;
  private last?: PingResult & { at: number };

  constructor(
    readonly name: string,
    options: PoolConfig,
    private readonly timeoutMs: number,
  ) {
    this.pool = new Pool({
      ...options,
      max: 1,
      connectionTimeoutMillis: timeoutMs,
      query_timeout: timeoutMs,
      statement_timeout: timeoutMs,
      // Kept open between probes: a probe should not pay for a new connection each time.
      idleTimeoutMillis: 0,
      allowExitOnIdle: true,
    });
    // A dropped idle connection is replaced by the next ping.
    this.pool.on('error', () => undefined);
  }

  check(): Promise<PingResult> {
    if (this.last && Date.now() - this.last.at < PING_CACHE_MS) return Promise.resolve(this.last);
    this.pending ??= this.ping().finally(() => (this.pending = undefined));
    return this.pending;
  }

  close(): Promise<void> {
    return this.pool.end();
  }

  private async ping(): Promise<PingResult> {
    const started = Date.now();
    let isUp = true;
    try {
      await selectOne(this.pool, this.timeoutMs);
    } catch (error) {
      isUp = false;
      // Once when it stops answering, not at every probe (every few seconds, from every kubelet).
      if (this.last?.isUp !== false) {
        this.logger.warn(`Readiness: ${this.name} did not answer: ${(error as Error).message}`);
      }
    }
    if (isUp && this.last?.isUp === false) this.logger.log(`Readiness: ${this.name} answers again`);
    this.last = { isUp, responseTime: Date.now() - started, at: Date.now() };
    return this.last;
  }
}
