#!/usr/bin/env node
// The `clube` command. It runs the service compiled to plain JavaScript
// (compile.mjs: rebuilt on the first start after a source changed), so there
// is no build step between a checkout and a running server.
import { setFlagsFromString } from "node:v8";
import { compiledCli } from "./compile.mjs";

// Memory budget, deliberate: ≤ 250 MB RSS per process under load (issue #10).
// The live heap is ~40-60 MB, but by default V8 lets the old generation grow
// to up to 4× the live size between full collections when allocation is fast,
// so a loaded server peaked at 300+ MB of mostly garbage. What is not the V8
// heap is ~115 MB on both databases (sampled at serve's peak, 24 Nov): ~59 MB
// of mapped files (the node binary), ~55 MB of malloc (libsql's page cache,
// the SQLite checkpoint worker's isolate ≈ 17 MB, V8's compiler threads'
// arenas); the young generation is 32 MB. So the old generation's growth
// factor is what decides the peak. 1.5× keeps it under the budget: SQLite
// serve under the bench's async load (the largest) peaked at 228-229 MB. 2×
// (tried 24 Nov: fewer full collections, each of which also discards
// optimized code that TurboFan compiles again) cut CPU per batch by 2-3 ms in
// bench/micro/http-batch-costs.ts but took that peak to 236-255 MB; 1.75× to
// 227-251 MB (244 and 251 in 2 of 6 `npm run bench` runs), with no batch
// throughput measurably gained over 1.5× in the bench itself.
// Rejected: fitting the factor to the budget after each full collection (it
// chose 40-66 % on SQLite yet peaked at 232-234 MB: the peak comes from
// allocation during concurrent marking, not from the limit alone); smaller
// semi-spaces (start-up only: V8 ignores the flag once running).
// MALLOC_ARENA_MAX=2 in serve's environment saves ~13 MB more (1: ~18 MB)
// but glibc reads it at start only: an operator sets it where the process is
// started (systemd Environment=, `docker run -e`, the shell).
// V8 reads the factor at every collection, so setting it here, after start,
// takes effect. An operator's own flag wins.
if (!process.execArgv.some((flag) => flag.startsWith("--heap-growing-percent"))) setFlagsFromString("--heap-growing-percent=50");

const compiled = await compiledCli();
if (compiled) await import(compiled);
else {
  // A read-only checkout without a current bundle: the sources through tsx's loader (more memory, same behaviour).
  process.stderr.write("clube: cannot write server/dist; running the TypeScript sources through tsx\n");
  (await import("tsx/esm/api")).register();
  await import("../src/cli.ts");
}
