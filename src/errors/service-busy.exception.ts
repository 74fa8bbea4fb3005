import { ServiceUnavailableException } from '@nestjs/common';
import { SERVICE_BUSY } from './error-texts';

/** A retry soon may succeed: the work was refused at once because its cap is reached. */
export const RETRY_AFTER_SECONDS_WHEN_BUSY = 1;

/**
 * A 503 for work this pod will not take on now (docs/operations.md, Limits), told apart from a
 * database outage by its detail and a shorter Retry-After.
 */
export class ServiceBusyException extends ServiceUnavailableException {
  constructor(readonly reason: string) {
    super(SERVICE_BUSY);
  }
}
