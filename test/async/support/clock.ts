import type { Clock } from "../../../server/src/services.js";

/**
 * A clock that runs with real time but can be moved forward: the server's
 * retry scheduler then sees the 1-minute retry as due without the test
 * waiting a minute, while timeouts and polling keep working in real time.
 */
export interface ShiftableClock extends Clock {
  advance(ms: number): void;
}

export function shiftableClock(): ShiftableClock {
  let offsetMs = 0;
  return {
    now: () => new Date(Date.now() + offsetMs),
    advance(ms) {
      offsetMs += ms;
    },
  };
}
