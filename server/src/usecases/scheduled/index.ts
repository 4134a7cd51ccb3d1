/** The worker's periodic jobs over every domain, and what a test clock's advance runs. */
export { clockOf, testClockTasks, workerTasks } from "./tasks.js";
