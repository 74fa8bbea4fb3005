/** Nothing answered in time: a hung server, or a lost connection not yet noticed. */
export class NoAnswerError extends Error {}

/**
 * `work`'s outcome, or a rejection once it has gone `ms` unsettled. A timer runs before the
 * I/O that arrived while the event loop was held (a long task, a collection, a throttled CPU):
 * so the timeout is decided only after that I/O, and a reply that arrived in time is not taken
 * for a hung server.
 */
export function withinTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let isSettled = false;
    // An immediate runs after the loop's poll for I/O, which the timer's own turn precedes.
    const timer = setTimeout(
      () =>
        setImmediate(() => {
          if (!isSettled) reject(new NoAnswerError(`no answer within ${ms} ms`));
        }),
      ms,
    );
    const settle = () => {
      isSettled = true;
      clearTimeout(timer);
    };
    work.then(
      (value) => (settle(), resolve(value)),
      (error: unknown) => (settle(), reject(error)),
    );
  });
}
