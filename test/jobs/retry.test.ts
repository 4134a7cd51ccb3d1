import { describe, expect, it } from "vitest";
import { DEFAULT_RETRY_POLICY, retryDelayMs } from "../../server/src/jobs/retry.js";

describe("job retry backoff", () => {
  const policy = { maxAttempts: 6, baseDelayMs: 1_000, maxDelayMs: 10_000 };

  it("doubles from the base delay and stops growing at the cap", () => {
    expect([1, 2, 3, 4, 5].map((attempt) => retryDelayMs(policy, attempt))).toEqual([1_000, 2_000, 4_000, 8_000, 10_000]);
  });

  it("allows a retry after the second-to-last attempt and none after the last", () => {
    expect(retryDelayMs(policy, policy.maxAttempts - 1)).toBe(10_000);
    expect(retryDelayMs(policy, policy.maxAttempts)).toBeNull();
  });

  it("spreads the default 8 attempts over about four minutes", () => {
    const delays = Array.from({ length: DEFAULT_RETRY_POLICY.maxAttempts - 1 }, (_, i) => retryDelayMs(DEFAULT_RETRY_POLICY, i + 1)!);
    expect(delays).toEqual([2_000, 4_000, 8_000, 16_000, 32_000, 64_000, 120_000]);
    expect(retryDelayMs(DEFAULT_RETRY_POLICY, DEFAULT_RETRY_POLICY.maxAttempts)).toBeNull();
  });
});
