#!/usr/bin/env node
// The `clube` command. It runs the service compiled to plain JavaScript
// (compile.mjs: rebuilt on the first start after a source changed), so there
// is no build step between a checkout and a running server.
import { setFlagsFromString } from "node:v8";
import { compiledCli } from "./compile.mjs";

// Memory budget: ≤ 250 MB RSS per process under load. V8 lets the old generation grow to up to 4× the live
// heap between full collections, which decided the peak; 1.5× keeps it under the budget at no measured cost
// (docs/performance-log.md#memory). V8 reads the factor at every collection, so setting it after start works;
// an operator's own flag wins.
if (!process.execArgv.some((flag) => flag.startsWith("--heap-growing-percent"))) setFlagsFromString("--heap-growing-percent=50");
// Allocation-site pretenuring: V8 allocates straight into the old generation the objects of a site whose objects once
// survived scavenges, and never revisits that. The slow requests of a busy moment (a batch, writes waiting on the disk)
// mark the sites of every request's objects (Node's HTTP messages, Koa's context), so afterwards each request's objects
// are old from birth, keep the young ones they point to alive through two scavenges and are freed only by a full
// collection: the pauses of every request after (docs/performance-log.md). An operator's own flag wins.
if (!process.execArgv.some((flag) => /^--(no-)?allocation-site-pretenuring/.test(flag))) setFlagsFromString("--no-allocation-site-pretenuring");

const compiled = await compiledCli();
if (compiled) await import(compiled);
else {
  // A read-only checkout without a current bundle: the sources through tsx's loader (more memory, same behaviour).
  process.stderr.write("clube: cannot write server/dist; running the TypeScript sources through tsx\n");
  (await import("tsx/esm/api")).register();
  await import("../src/cli.ts");
}
