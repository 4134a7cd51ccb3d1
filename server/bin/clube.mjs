#!/usr/bin/env node
// The `clube` command. It runs the service compiled to plain JavaScript
// (compile.mjs: rebuilt on the first start after a source changed), so there
// is no build step between a checkout and a running server.
import { setFlagsFromString } from "node:v8";
import { compiledCli } from "./compile.mjs";

// Memory budget, deliberate: ≤ 250 MB RSS per process under load (issue #10).
// The live heap is ~40-60 MB, but by default V8 lets the old generation grow
// to up to 4× the live size between full collections when allocation is fast,
// so a loaded server peaked at 300+ MB of mostly garbage. Growing by 2× at
// most keeps the peak at 215-236 MB (bench, SQLite: serve with the embedded
// queue under the async load is the largest). 1.5× (until 24 Nov) kept it
// near 210 MB but ran a full collection every ~10 batches of 500, and each
// one also discards the optimized code of closures a batch creates (V8 holds
// it weakly once they are gone), which TurboFan then compiles again: 2× cut
// clube serve's CPU per batch by 2.8 ms on PostgreSQL (4 of 4 alternated
// pairs) and 2.0 ms on SQLite (6 of 8), ≈ 5 % (test/micro/http-batch-costs.ts).
// V8 reads the factor at every collection, so setting it here, after start,
// takes effect. An operator's own flag wins.
if (!process.execArgv.some((flag) => flag.startsWith("--heap-growing-percent"))) setFlagsFromString("--heap-growing-percent=100");

const compiled = await compiledCli();
if (compiled) await import(compiled);
else {
  // A read-only checkout without a current bundle: the sources through tsx's loader (more memory, same behaviour).
  process.stderr.write("clube: cannot write server/dist; running the TypeScript sources through tsx\n");
  (await import("tsx/esm/api")).register();
  await import("../src/cli.ts");
}
