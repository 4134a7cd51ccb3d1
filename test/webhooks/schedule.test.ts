import { describe, expect, it } from "vitest";
import { MAX_SCHEDULED_ATTEMPTS, nextAttemptAt } from "../../server/src/webhooks/schedule.js";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const start = new Date("2025-03-01T12:00:00.000Z");

describe("webhook retry schedule", () => {
  it("waits 1 min, 5 min, 30 min, 2 h, 12 h, then 24 h three times", () => {
    const expected = [1 * MINUTE, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 12 * HOUR, 24 * HOUR, 24 * HOUR, 24 * HOUR];
    expected.forEach((delay, index) => {
      expect(nextAttemptAt(index + 1, start)?.getTime()).toBe(start.getTime() + delay);
    });
  });

  it("allows 9 attempts in total: the 8th failure still schedules, the 9th marks failed", () => {
    expect(MAX_SCHEDULED_ATTEMPTS).toBe(9);
    expect(nextAttemptAt(8, start)).not.toBeNull();
    expect(nextAttemptAt(9, start)).toBeNull();
    expect(nextAttemptAt(10, start)).toBeNull();
  });

  it("walks the whole schedule: the last attempt is 3 days 14 h 36 min after the first", () => {
    let at = start;
    let attempts = 1;
    for (let next = nextAttemptAt(attempts, at); next; next = nextAttemptAt(attempts, at)) {
      at = next;
      attempts += 1;
    }
    expect(attempts).toBe(9);
    expect(at.getTime() - start.getTime()).toBe(3 * 24 * HOUR + 14 * HOUR + 36 * MINUTE);
  });

  it("refuses an attempt count below 1 or not an integer", () => {
    expect(() => nextAttemptAt(0, start)).toThrow(RangeError);
    expect(() => nextAttemptAt(1.5, start)).toThrow(RangeError);
  });
});
