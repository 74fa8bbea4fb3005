export interface WaitOptions {
  /** What is awaited, for the error message (a function when it depends on later state). */
  what: string | (() => string);
  timeoutMs?: number;
  intervalMs?: number;
}

/**
 * Polls `probe` until it returns a value other than undefined, null or false, and returns
 * that value; throws naming `what` after `timeoutMs`. The one way tests wait for a condition.
 */
export async function waitFor<T>(
  probe: () => T | undefined | null | false | Promise<T | undefined | null | false>,
  { what, timeoutMs = 10000, intervalMs = 50 }: WaitOptions,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined && value !== null && value !== false) return value;
    if (Date.now() > deadline) {
      const description = typeof what === 'function' ? what() : what;
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${description}`);
    }
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}
