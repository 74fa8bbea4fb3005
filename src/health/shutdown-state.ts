import { Injectable } from '@nestjs/common';

/** Set on SIGTERM: readiness fails from then on and responses close their connections. */
@Injectable()
export class ShutdownState {
  isShuttingDown = false;
  /** Requests received and not yet answered, so the shutdown can wait for them. */
  inFlight = 0;
}
