import { INestApplication, Logger } from '@nestjs/common';
import { Server } from 'node:http';
import { Server as NetServer } from 'node:net';
import { OperationsEnv } from '../config/operations.env';
import { ShutdownState } from './shutdown-state';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
// After the last in-flight request, a short wait for requests on connections accepted just
// before the listener closed, whose bytes were not read yet.
const SETTLE_MS = 200;
const CUT_RESPONSES_CLOSE_MS = 100;

/**
 * On SIGTERM or SIGINT: readiness fails at once; the server keeps serving for
 * SHUTDOWN_DRAIN_DELAY_MS while load balancers stop routing here (responses meanwhile carry
 * `Connection: close`, so keep-alive clients reconnect elsewhere); then it stops listening,
 * lets the requests it has finish, closes the app and the pool, and exits 0. Past
 * SHUTDOWN_TIMEOUT_MS it cuts what is left and exits 1, inside the orchestrator's grace period.
 */
export function shutDownGracefully(
  app: INestApplication,
  afterClose: () => Promise<unknown> = async () => undefined,
): void {
  const { SHUTDOWN_DRAIN_DELAY_MS: drainDelayMs, SHUTDOWN_TIMEOUT_MS: timeoutMs } =
    app.get(OperationsEnv);
  const state = app.get(ShutdownState);
  const server = app.getHttpServer() as Server;
  const logger = new Logger('Shutdown');

  const shutDown = async (signal: NodeJS.Signals): Promise<number> => {
    state.begin();
    let cut = false;
    logger.log(`${signal}: not ready; draining for ${drainDelayMs} ms`);
    await sleep(drainDelayMs);
    const deadline = setTimeout(() => {
      logger.error(`requests still open after ${timeoutMs} ms; closing them`);
      cut = true;
      server.closeAllConnections();
      // The cut responses close on the loop's next turns, each writing its access-log line.
      setTimeout(() => process.exit(1), CUT_RESPONSES_CLOSE_MS);
    }, timeoutMs);
    deadline.unref();
    // net.Server#close stops accepting but, unlike http.Server#close, leaves the accepted
    // connections alone, so a request that has just arrived on one is still answered.
    logger.log('refusing new connections; finishing in-flight requests');
    NetServer.prototype.close.call(server);
    do await sleep(SETTLE_MS);
    while (state.inFlight > 0);
    await app.close();
    await afterClose();
    if (cut) return 1;
    logger.log('closed cleanly');
    return 0;
  };

  const onSignal = (signal: NodeJS.Signals) => {
    shutDown(signal).then(
      (code) => process.exit(code),
      (error: unknown) => {
        logger.error(error instanceof Error ? error.stack : String(error));
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', onSignal);
  process.once('SIGINT', onSignal);
}
