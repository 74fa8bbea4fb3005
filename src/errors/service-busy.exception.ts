import { ServiceUnavailableException } from '@nestjs/common';
import { SERVICE_BUSY } from './error-texts';

/** The longest Retry-After of a refusal for load (docs/consumers.md, "Retries"). */
export const MAX_RETRY_AFTER_SECONDS_WHEN_BUSY = 4;

/**
 * A retry soon may succeed: the work was refused because its cap is reached. The seconds are
 * drawn from 1 to MAX_RETRY_AFTER_SECONDS_WHEN_BUSY, so clients refused together do not all
 * come back in the same instant.
 */
export const retryAfterWhenBusy = (): number =>
  1 + Math.floor(Math.random() * MAX_RETRY_AFTER_SECONDS_WHEN_BUSY);

/**
 * A 503 for work this pod will not take on now (docs/operations.md, Limits), told apart from a
 * database outage by its detail and a shorter Retry-After.
 */
export class ServiceBusyException extends ServiceUnavailableException {
  constructor(readonly reason: string) {
    super(SERVICE_BUSY);
  }
}
