import { defineConfig } from "vitest/config";

// One test command for everything: contract, engine, API on both databases,
// jobs on both queue adapters, SDKs. Database-backed suites create their own
// databases, so files may run in parallel.
export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    // Generous: tests poll for conditions, so a slow machine only makes them
    // wait longer; these bounds only decide how long a real failure takes to show.
    testTimeout: 120_000,
    hookTimeout: 60_000,
    pool: "forks",
    // Two files at a time on the 2-core machines: most suites wait on PostgreSQL, RabbitMQ, a child process
    // or a browser for much of their time, which the other file fills (docs/performance-log.md#test-time).
    maxWorkers: 2,
    // Every file runs in a fresh fork (isolate), so the generated Ajv module (~2.8 MB of plain ESM, no
    // TypeScript) is loaded once per file that touches the API: through Vite's transform that cost
    // ~280 ms of CPU per file plus a one-off ~5 s transform; natively imported ~55 ms. Nothing mocks it.
    server: { deps: { external: [/\/generated\/validators\.js$/] } },
  },
});
