/**
 * `work`'s answer, or `expired()`'s error once `ms` have passed without one. The work is not
 * cancelled: its caller decides what becomes of a late answer.
 */
export function withinDeadline<T>(work: Promise<T>, ms: number, expired: () => Error): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(expired()), ms);
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}
