import { Inject, Injectable } from '@nestjs/common';
import { Response } from 'express';
import { Counter } from 'prom-client';
import { LimitsEnv } from '../config/limits.env';
import { SHED_COUNTER } from './shed-counter';

/**
 * How many requests of each API key are being answered, capped by MAX_REQUESTS_PER_KEY: one
 * key's slow requests cannot take the database pool, or the pod, from the others.
 */
@Injectable()
export class KeyConcurrency {
  private readonly inFlight = new Map<string, number>();
  private readonly max: number;

  constructor(
    env: LimitsEnv,
    @Inject(SHED_COUNTER) private readonly shed: Counter<'reason'>,
  ) {
    this.max = env.MAX_REQUESTS_PER_KEY;
  }

  /** Counts the request of `keyId` until `res` closes; false, counting nothing, past the cap. */
  admit(keyId: string, res: Response): boolean {
    const count = this.inFlight.get(keyId) ?? 0;
    if (count >= this.max) {
      this.shed.inc({ reason: 'key_in_flight' });
      return false;
    }
    this.inFlight.set(keyId, count + 1);
    res.once('close', () => {
      const left = (this.inFlight.get(keyId) ?? 1) - 1;
      if (left === 0) this.inFlight.delete(keyId);
      else this.inFlight.set(keyId, left);
    });
    return true;
  }
}
