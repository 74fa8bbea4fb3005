import { ThrottlerStorage } from '@nestjs/throttler';

/** What a store answers for a hit (the package does not export the type by name). */
export type ThrottlerStorageRecord = Awaited<ReturnType<ThrottlerStorage['increment']>>;

/**
 * The limiter's one rule, whichever store counts: a caller's hits are counted in a fixed
 * window that starts with its first hit; past `limit`, it waits for the window to end.
 */
export function fixedWindowRecord(
  hits: number,
  remainingMs: number,
  limit: number,
): ThrottlerStorageRecord {
  const timeToExpire = Math.max(1, Math.ceil(remainingMs / 1000));
  const isBlocked = hits > limit;
  return {
    totalHits: hits,
    timeToExpire,
    isBlocked,
    timeToBlockExpire: isBlocked ? timeToExpire : 0,
  };
}
