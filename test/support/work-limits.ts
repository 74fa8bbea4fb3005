import { Registry } from 'prom-client';
import { DatabaseEnv } from '../../src/config/database.env';
import { LimitsEnv } from '../../src/config/limits.env';
import { shedCounter } from '../../src/limits/shed-counter';
import { CostlyWork, WorkLimits } from '../../src/limits/work-limits';

/** WorkLimits with the default caps, or those given, for services built outside an app. */
export function workLimits(caps: Partial<LimitsEnv> = {}): WorkLimits {
  return new WorkLimits(
    Object.assign(new LimitsEnv(), caps),
    Object.assign(new DatabaseEnv(), { DATABASE_TIMEOUT_MS: 5000 }),
    shedCounter(new Registry()),
  );
}

/** How much work of `kind` waits for a slot in `limits` (a request in flight may not yet). */
export function waitingWork(limits: WorkLimits, kind: CostlyWork): number {
  return limits['slots'][kind].load.waiting;
}
