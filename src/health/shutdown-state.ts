import { ServerResponse } from 'node:http';
import { Injectable } from '@nestjs/common';

/** Set on SIGTERM: readiness fails from then on and responses close their connections. */
@Injectable()
export class ShutdownState {
  isShuttingDown = false;
  private readonly onBegin: (() => void)[] = [];
  /** Requests received and not yet answered, so the shutdown can wait for them. */
  inFlight = 0;

  /** Marks the shutdown begun (SIGTERM), and tells those waiting for it at once. */
  begin(): void {
    this.isShuttingDown = true;
    for (const listener of this.onBegin.splice(0)) listener();
  }

  /** Calls `listener` once, when the shutdown begins. */
  onShutdown(listener: () => void): void {
    this.onBegin.push(listener);
  }

  /** While draining, a response tells its keep-alive client to reconnect (to another replica). */
  requestStarted(res: ServerResponse): void {
    if (this.isShuttingDown) res.setHeader('Connection', 'close');
    this.inFlight++;
  }

  /** Called when the response closes, answered or not. */
  requestEnded(): void {
    this.inFlight--;
  }
}
