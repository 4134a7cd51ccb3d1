/** When the SDK waits between attempts. Pure: the random number is passed in. */
export interface BackoffPolicy {
  /** Ceiling of the first wait; doubles on every further retry. */
  baseDelayMs: number;
  /** No wait is longer than this, whatever the retry number or `Retry-After`. */
  maxDelayMs: number;
}

export const defaultBackoff: BackoffPolicy = { baseDelayMs: 500, maxDelayMs: 8_000 };

/**
 * Wait before retry number `retry` (1 for the first retry): exponential with
 * "equal jitter", i.e. between half and all of `base * 2^(retry-1)` (capped).
 * The jitter spreads clients that failed together so they do not all come
 * back at the same instant; keeping half the ceiling avoids near-zero waits.
 * `random` is in [0, 1).
 */
export function backoffDelayMs(retry: number, random: number, policy: BackoffPolicy): number {
  const ceiling = Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (retry - 1));
  return Math.round(ceiling / 2 + (random * ceiling) / 2);
}

/** Answers worth repeating: rate limited (429) or a server-side failure (5xx). */
export function isRetryableStatus(status: number): boolean {
  return status === 429 || (status >= 500 && status <= 599);
}

/**
 * A `Retry-After` in its delta-seconds form, in milliseconds; `null` when
 * absent or an HTTP date (then the normal backoff applies: honouring a date
 * would need a clock this pure module does not have).
 */
export function retryAfterMs(header: string | null): number | null {
  if (header === null || !/^\d+$/.test(header.trim())) return null;
  return Number(header.trim()) * 1000;
}

/** The wait before a retry: the backoff, stretched to what the server asked for, never beyond the cap. */
export function retryDelayMs(retry: number, random: number, retryAfter: number | null, policy: BackoffPolicy): number {
  return Math.min(policy.maxDelayMs, Math.max(backoffDelayMs(retry, random, policy), retryAfter ?? 0));
}
