import { INestApplication } from '@nestjs/common';
import { createServer } from 'node:http';
import { waitFor } from '../../test/support/wait-for';
import { OperationsEnv } from '../config/operations.env';
import { shutDownGracefully } from './graceful-shutdown';
import { ShutdownState } from './shutdown-state';

describe('shutDownGracefully', () => {
  afterEach(() => jest.restoreAllMocks());

  // The settle loop looks every 200 ms; the cut request's connection closes at once. A shutdown
  // that cut requests must exit 1, even when the loop then finds nothing open and closes the
  // app before the exit that follows the cut.
  it('exits 1 after cutting requests, never 0', async () => {
    const state = new ShutdownState();
    state.inFlight = 1;
    const server = Object.assign(createServer(), {
      closeAllConnections: () => (state.inFlight = 0),
    });
    const env = { SHUTDOWN_DRAIN_DELAY_MS: 0, SHUTDOWN_TIMEOUT_MS: 150 };
    const app = {
      get: (token: unknown) => (token === OperationsEnv ? env : state),
      getHttpServer: () => server,
      close: async () => undefined,
    } as unknown as INestApplication;
    const exits: (number | undefined)[] = [];
    jest.spyOn(process, 'exit').mockImplementation(((code?: number) => {
      exits.push(code);
    }) as never);
    const listening = (signal: NodeJS.Signals) => [...process.listeners(signal)];
    const [termBefore, intBefore] = [listening('SIGTERM'), listening('SIGINT')];
    shutDownGracefully(app);
    const added = (signal: NodeJS.Signals, before: unknown[]) =>
      listening(signal).filter((listener) => !before.includes(listener));
    const [onSignal] = added('SIGTERM', termBefore);
    process.removeListener('SIGTERM', onSignal);
    for (const listener of added('SIGINT', intBefore)) process.removeListener('SIGINT', listener);

    onSignal('SIGTERM');
    // Two exits, whichever comes first: the one after the cut, and the shutdown's own end.
    await waitFor(() => exits.length === 2, { what: 'both exits' });
    expect(exits).toEqual([1, 1]);
  });
});
