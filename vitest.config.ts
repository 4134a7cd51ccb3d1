import { defineConfig } from "vitest/config";

// One test command for everything: contract, engine, API on both databases,
// jobs on both queue adapters, SDKs. Database-backed suites create their own
// databases, so files may run in parallel.
export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
  },
});
