import { ServerResponse } from 'node:http';
import { Injectable } from '@nestjs/common';

/** Set on SIGTERM: readiness fails from then on and responses close their connections. */
@Injectable()
export class ShutdownState {
  isShuttingDown = false;
  /** Requests received and not yet answered, so the shutdown can wait for them. */
  inFlight = 0;

  /**
   * Counts a request in flight until it closes. While draining, its response tells a keep-alive
   * client to reconnect (to another replica).
   */
  track(res: ServerResponse): void {
    if (this.isShuttingDown) res.setHeader('Connection', 'close');
    this.inFlight++;
    res.on('close', () => this.inFlight--);
  }
}
