import { Inject, Injectable } from '@nestjs/common';
import { Counter } from 'prom-client';
import { DatabaseEnv } from '../config/database.env';
import { LimitsEnv } from '../config/limits.env';
import { ServiceBusyException } from '../errors/service-busy.exception';
import { FairSlots, Release } from './fair-slots';
import { SHED_COUNTER, ShedReason } from './shed-counter';

/** Work that holds a pooled connection for long, capped per kind. */
export type CostlyWork = Extract<ShedReason, 'count' | 'deep_page' | 'list_render'>;

/**
 * Caps on the costly work a pod runs at once, each kind on its own, so that together they
 * leave pooled connections to every other request. Past a cap the work waits its key's turn
 * (FairSlots: a key running such work back to back leaves the next slot to a key waiting with
 * fewer), up to DATABASE_TIMEOUT_MS, as it would for a connection; a key with as many waiting
 * as the cap, or a wait past the deadline, is refused (a 503 with a short Retry-After).
 */
@Injectable()
export class WorkLimits {
  private readonly slots: Record<CostlyWork, FairSlots>;
  private readonly waitMs: number;

  constructor(
    env: LimitsEnv,
    database: DatabaseEnv,
    @Inject(SHED_COUNTER) private readonly shed: Counter<'reason'>,
  ) {
    const slots = (cap: number) => new FairSlots(cap, cap);
    this.slots = {
      count: slots(env.MAX_CONCURRENT_COUNTS),
      deep_page: slots(env.MAX_CONCURRENT_DEEP_PAGES),
      list_render: slots(env.MAX_CONCURRENT_LIST_RENDERS),
    };
    this.waitMs = database.DATABASE_TIMEOUT_MS;
  }

  /** Runs `work` of `keyId` once a slot of its kind is its turn, or throws ServiceBusyException. */
  async run<T>(kind: CostlyWork, keyId: string, work: () => Promise<T>): Promise<T> {
    const release = await this.slots[kind].acquire(keyId, this.waitMs, () => {
      this.shed.inc({ reason: kind });
      return new ServiceBusyException(kind);
    });
    return this.releasing(release, work);
  }

  /**
   * Runs `work` within its kind's cap, waiting its turn however long rather than refused: for
   * the rest of work a response has begun (its answer can no longer be a 503).
   */
  async runInTurn<T>(kind: CostlyWork, keyId: string, work: () => Promise<T>): Promise<T> {
    return this.releasing(await this.slots[kind].acquireInTurn(keyId), work);
  }

  private async releasing<T>(release: Release, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } finally {
      release();
    }
  }
}
