#!/usr/bin/env node
// The `clube` command. It runs the service compiled to plain JavaScript
// (compile.mjs: rebuilt on the first start after a source changed), so there
// is no build step between a checkout and a running server.
import { setFlagsFromString } from "node:v8";
import { compiledCli } from "./compile.mjs";

// Memory budget, deliberate: ≤ 250 MB RSS per process under load (issue #10).
// The live heap is ~40-60 MB, but by default V8 lets the old generation grow
// to up to 4× the live size between full collections when allocation is fast,
// so a loaded server peaked at 300+ MB of mostly garbage. Growing by 1.5× at
// most keeps the peak near 210 MB; measured side by side, the CPU per event
// is unchanged (the extra full collections are incremental and short with a
// heap this small). V8 reads the factor at every collection, so setting it
// here, after start, takes effect. An operator's own flag wins.
if (!process.execArgv.some((flag) => flag.startsWith("--heap-growing-percent"))) setFlagsFromString("--heap-growing-percent=50");

const compiled = await compiledCli();
if (compiled) await import(compiled);
else {
  // A read-only checkout without a current bundle: the sources through tsx's loader (more memory, same behaviour).
  process.stderr.write("clube: cannot write server/dist; running the TypeScript sources through tsx\n");
  (await import("tsx/esm/api")).register();
  await import("../src/cli.ts");
}
