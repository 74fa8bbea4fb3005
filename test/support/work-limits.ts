import { Registry } from 'prom-client';
import { LimitsEnv } from '../../src/config/limits.env';
import { shedCounter } from '../../src/limits/shed-counter';
import { WorkLimits } from '../../src/limits/work-limits';

/** WorkLimits with the default caps, or those given, for services built outside an app. */
export function workLimits(caps: Partial<LimitsEnv> = {}): WorkLimits {
  return new WorkLimits(Object.assign(new LimitsEnv(), caps), shedCounter(new Registry()));
}
