/**
 * The seed's retry schedule for a webhook sending, as data: after the first
 * attempt fails, retry after 1 min, 5 min, 30 min, 2 h and 12 h, then three
 * more times every 24 h; after that the sending is marked failed (it can still
 * be resent by hand from the console).
 */

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;

/** Delay before attempt n+2, indexed by n (the first entry follows attempt 1). */
export const RETRY_DELAYS_MS: readonly number[] = [1 * MINUTE, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 12 * HOUR, 24 * HOUR, 24 * HOUR, 24 * HOUR];

/** 9: the first attempt plus one per scheduled retry. */
export const MAX_SCHEDULED_ATTEMPTS = 1 + RETRY_DELAYS_MS.length;

/**
 * When to try again after `attemptsSoFar` failed attempts, the last one made at
 * `lastAttemptAt`; null when the schedule is exhausted and the sending must be
 * marked failed. (A manual resend restarts the count at 0, so the whole
 * schedule applies again.)
 */
export function nextAttemptAt(attemptsSoFar: number, lastAttemptAt: Date): Date | null {
  if (!Number.isInteger(attemptsSoFar) || attemptsSoFar < 1) {
    throw new RangeError(`attemptsSoFar must be an integer >= 1, got ${attemptsSoFar}`);
  }
  const delay = RETRY_DELAYS_MS[attemptsSoFar - 1];
  return delay === undefined ? null : new Date(lastAttemptAt.getTime() + delay);
}
