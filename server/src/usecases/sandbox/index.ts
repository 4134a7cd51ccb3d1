// The sandbox domain's public face: what other folders may use of it.
export { getBacktest, processBacktest, startBacktest } from "./run-backtest.js";
export { clockOverride, withClockAt } from "./test-clock-context.js";
export { advanceTestClock, deleteTestClock, getTestClock, knownTestClockAt, testClockAt } from "./test-clock.js";
