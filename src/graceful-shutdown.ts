import { INestApplication, Logger } from '@nestjs/common';
import { ConfigService } from '@nestjs/config';
import { Server } from 'node:http';
import { Env } from './config/env';
import { ShutdownState } from './health/shutdown-state';

/**
 * On SIGTERM or SIGINT (issue 4, item 4): readiness fails at once; the server keeps serving for
 * SHUTDOWN_DRAIN_DELAY_MS while load balancers stop routing here (responses meanwhile ask
 * keep-alive clients to reconnect elsewhere); then it refuses new connections, lets in-flight
 * requests finish, closes the pool and exits 0. Past SHUTDOWN_TIMEOUT_MS it cuts what is left
 * and exits 1, still inside the orchestrator's grace period.
 */
export function shutDownGracefully(
  app: INestApplication,
  afterClose: () => Promise<unknown> = async () => undefined,
): void {
  const config = app.get(ConfigService<Env, true>);
  const drainDelayMs = config.get('SHUTDOWN_DRAIN_DELAY_MS', { infer: true });
  const timeoutMs = config.get('SHUTDOWN_TIMEOUT_MS', { infer: true });
  const logger = new Logger('Shutdown');
  const onSignal = (signal: NodeJS.Signals) => {
    app.get(ShutdownState).isShuttingDown = true;
    logger.log(`${signal}: not ready; draining for ${drainDelayMs} ms, then closing`);
    setTimeout(() => {
      const server = app.getHttpServer() as Server;
      const deadline = setTimeout(() => {
        logger.error(`requests still open after ${timeoutMs} ms; closing them`);
        server.closeAllConnections();
        process.exit(1);
      }, timeoutMs);
      deadline.unref();
      app
        .close()
        .then(afterClose)
        .then(
          () => {
            logger.log('closed cleanly');
            process.exit(0);
          },
          (error: unknown) => {
            logger.error(error instanceof Error ? error.stack : String(error));
            process.exit(1);
          },
        );
    }, drainDelayMs);
  };
  process.once('SIGTERM', onSignal);
  process.once('SIGINT', onSignal);
}
