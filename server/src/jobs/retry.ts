/**
 * How a queue retries a failed handler: exponential backoff from `baseDelayMs`,
 * doubling per attempt and capped at `maxDelayMs`, for at most `maxAttempts`
 * attempts in total. Shared by both queue adapters so a job behaves the same
 * on RabbitMQ and embedded.
 */
export interface RetryPolicy {
  maxAttempts: number;
  baseDelayMs: number;
  maxDelayMs: number;
}

/** 8 attempts over about 4 minutes: enough to ride out a database failover or a deploy. */
export const DEFAULT_RETRY_POLICY: RetryPolicy = { maxAttempts: 8, baseDelayMs: 2_000, maxDelayMs: 120_000 };

/**
 * The delay before the next attempt after attempt number `failedAttempt`
 * failed, or null when no attempts remain (the message is dead).
 */
export function retryDelayMs(policy: RetryPolicy, failedAttempt: number): number | null {
  if (failedAttempt >= policy.maxAttempts) return null;
  return Math.min(policy.maxDelayMs, policy.baseDelayMs * 2 ** (failedAttempt - 1));
}
