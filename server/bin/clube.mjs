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
// factor is what decides the peak. 1.5× (until 24 Nov) kept it near 210 MB
// but ran a full collection every ~10 batches of 500, and each one also
// discards optimized code that TurboFan then compiles again; 2× cut CPU per
// batch by 2-3 ms but took SQLite serve to 236-249 MB. 1.75×: SQLite serve
// peaks at 224 MB vs 236 at 2× (test/micro/http-batch-costs.ts, 100 batches,
// medians of 4 alternated pairs, lower in 4 of 4) and 228/228 vs 239 in
// `npm run bench`, with no CPU lost (71.9 vs 73.9 ms per batch); PostgreSQL
// serve 204 vs 206 MB, 41.8 vs 42.4 ms per batch (3 pairs).
// Rejected: fitting the factor to the budget after each full collection (it
// chose 40-66 % on SQLite yet peaked at 232-234 MB: the peak comes from
// allocation during concurrent marking, not from the limit alone); smaller
// semi-spaces (start-up only: V8 ignores the flag once running).
// MALLOC_ARENA_MAX=2 in serve's environment saves ~13 MB more (1: ~18 MB)
// but glibc reads it at start only: an operator sets it where the process is
// started (systemd Environment=, `docker run -e`, the shell).
// V8 reads the factor at every collection, so setting it here, after start,
// takes effect. An operator's own flag wins.
if (!process.execArgv.some((flag) => flag.startsWith("--heap-growing-percent"))) setFlagsFromString("--heap-growing-percent=75");

const compiled = await compiledCli();
if (compiled) await import(compiled);
else {
  // A read-only checkout without a current bundle: the sources through tsx's loader (more memory, same behaviour).
  process.stderr.write("clube: cannot write server/dist; running the TypeScript sources through tsx\n");
  (await import("tsx/esm/api")).register();
  await import("../src/cli.ts");
}
