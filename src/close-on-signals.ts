/**
 * On SIGTERM or SIGINT, runs `close` (the app stops accepting connections, finishes what it
 * has, releases the pool) and exits 0, so an orchestrator sees a clean stop.
 */
export function closeOnSignals(close: () => Promise<unknown>): void {
  const onSignal = () => {
    close().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error(error);
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', onSignal);
  process.once('SIGINT', onSignal);
}
