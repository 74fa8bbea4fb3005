import { Inject, Injectable } from '@nestjs/common';
import { Counter } from 'prom-client';
import { LimitsEnv } from '../config/limits.env';
import { ServiceBusyException } from '../errors/service-busy.exception';
import { SHED_COUNTER, ShedReason } from './shed-counter';

/** Work that holds a pooled connection for long, capped per kind. */
export type CostlyWork = Extract<ShedReason, 'count' | 'deep_page' | 'list_render'>;

/**
 * Caps on the costly work a pod runs at once, each kind on its own, so that together they
 * leave pooled connections to every other request. Past a cap the work is refused at once
 * (a 503 with a short Retry-After): waiting would only queue it behind the same work.
 */
@Injectable()
export class WorkLimits {
  private readonly running: Record<CostlyWork, number> = { count: 0, deep_page: 0, list_render: 0 };
  private readonly caps: Record<CostlyWork, number>;
  private readonly waiting: Record<CostlyWork, (() => void)[]> = {
    count: [],
    deep_page: [],
    list_render: [],
  };

  constructor(
    env: LimitsEnv,
    @Inject(SHED_COUNTER) private readonly shed: Counter<'reason'>,
  ) {
    this.caps = {
      count: env.MAX_CONCURRENT_COUNTS,
      deep_page: env.MAX_CONCURRENT_DEEP_PAGES,
      list_render: env.MAX_CONCURRENT_LIST_RENDERS,
    };
  }

  /** Runs `work` when fewer than its kind's cap run now; otherwise throws ServiceBusyException. */
  async run<T>(kind: CostlyWork, work: () => Promise<T>): Promise<T> {
    if (this.running[kind] >= this.caps[kind]) {
      this.shed.inc({ reason: kind });
      throw new ServiceBusyException(kind);
    }
    this.running[kind]++;
    return this.releasing(kind, work);
  }

  /**
   * Runs `work` within its kind's cap, waiting its turn for a free place rather than refused:
   * for the rest of work a response has begun (its answer can no longer be a 503).
   */
  async runInTurn<T>(kind: CostlyWork, work: () => Promise<T>): Promise<T> {
    if (this.running[kind] < this.caps[kind]) this.running[kind]++;
    else await new Promise<void>((resolve) => this.waiting[kind].push(resolve));
    return this.releasing(kind, work);
  }

  /** Runs `work` in a place already taken, then hands the place to the next in turn, if any. */
  private async releasing<T>(kind: CostlyWork, work: () => Promise<T>): Promise<T> {
    try {
      return await work();
    } finally {
      const next = this.waiting[kind].shift();
      if (next) next();
      else this.running[kind]--;
    }
  }
}
