/**
 * Where the Node CPU of a stored-players batch goes (the bench's casino mix,
 * batches of 500 applied with ingestBatch in this process, as in
 * batch-costs.ts): after a warm-up that creates the players and settles the
 * JIT, BATCH_COUNT batches (default 30) are measured. Prints the median CPU
 * per batch (process.cpuUsage) and the garbage collections' time per batch
 * (PerformanceObserver "gc" entries, by kind), and on PostgreSQL the
 * server's CPU per batch (its backends' /proc/<pid>/schedstat, as
 * batch-costs.ts reads it). Not a test: run
 * `npx tsx bench/micro/batch-profile.ts [postgresql|sqlite]`.
 * PROFILE=cpu: a CPU profile of the measured batches only, written to
 * PROFILE_FILE (default /tmp/batch.cpuprofile; summarize with any
 * .cpuprofile reader). PROFILE=alloc: V8's sampling heap profile of the
 * measured batches counting the objects young and full collections freed too
 * (what GC time is spent on), printed as bytes per batch by allocating function.
 * PROFILE=live: what the last batch holds when it writes (the objects each
 * young collection during a batch copies), by allocating function.
 * Under tsx every function reports line 1: bundle this file with esbuild
 * (`--bundle --packages=external --platform=node --format=esm`, output in
 * bench/micro/ so its relative paths hold) for real lines; node
 * --no-turbo-inlining names the allocating function rather than its inliner.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { Session } from "node:inspector/promises";
import { PerformanceObserver, constants } from "node:perf_hooks";
import { ingestBatch } from "../../server/src/usecases/events/ingest.js";
import { PendingWrites } from "../../server/src/usecases/evaluation/pending-writes.js";
import type { DatabaseKind } from "../../test/support/databases.js";
import { eventInput, PUBLIC_URL } from "../../test/usecases/fixtures.js";
import { openTestClub } from "../../test/support/club.js";
import { observePgQueries } from "./pg-queries.js";
import { casinoEvent } from "./casino-mix.js";

const BATCH_SIZE = 500;
const PLAYERS = 2000;
const COUNT = Number(process.env.BATCH_COUNT ?? 30);
const WARMUP = Number(process.env.BATCH_WARMUP ?? 12);
const PROFILE = process.env.PROFILE ?? "";

const gcKinds: Record<number, string> = {
  [constants.NODE_PERFORMANCE_GC_MINOR]: "minor",
  [constants.NODE_PERFORMANCE_GC_MAJOR]: "major",
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: "incremental",
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: "weakcb",
};
let measuring = false;
const gcMs = new Map<string, number>();
new PerformanceObserver((list) => {
  if (!measuring) return;
  for (const entry of list.getEntries()) {
    const kind = gcKinds[(entry as unknown as { detail: { kind: number } }).detail.kind] ?? "other";
    gcMs.set(kind, (gcMs.get(kind) ?? 0) + entry.duration);
  }
}).observe({ entryTypes: ["gc"] });

/** The PostgreSQL backends this process talks to (their CPU is read off /proc: the server runs on this machine). */
const backends = new Set<number>();
observePgQueries((query, self, args) => {
  const backend = (self as { processID?: number }).processID;
  if (backend) backends.add(backend);
  return query.apply(self, args);
});
function backendCpuMs(): number {
  let ns = 0;
  for (const pid of backends) {
    try {
      ns += Number(readFileSync(`/proc/${pid}/schedstat`, "utf8").split(" ")[0]);
    } catch {
      // A closed connection.
    }
  }
  return ns / 1e6;
}

/** A sampling heap profile's bytes by allocating site, per batch (`batches` of them), most first. */
function printSites(profile: { head: unknown }, batches: number, what: string): void {
  type Node = { callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number }; selfSize: number; children: Node[] };
  const bySite = new Map<string, number>();
  const frame = ({ functionName, url, lineNumber, columnNumber }: Node["callFrame"]) =>
    `${functionName || "(anon)"} ${url.replace(/^.*\/(server|test|node_modules)\//, "$1/")}:${lineNumber + 1}:${columnNumber + 1}`;
  // A builtin's allocations (Map#set, Array#map…) are named with the JS function calling it.
  const walk = (node: Node, caller: string) => {
    const site = node.callFrame.url === "" && caller !== "" ? `${caller} > ${node.callFrame.functionName || "(native)"}` : frame(node.callFrame);
    if (node.selfSize > 0) bySite.set(site, (bySite.get(site) ?? 0) + node.selfSize);
    for (const child of node.children) walk(child, node.callFrame.url === "" ? caller : frame(node.callFrame));
  };
  walk(profile.head as Node, "");
  const total = [...bySite.values()].reduce((sum, bytes) => sum + bytes, 0);
  console.log(`${what}: ≈ ${(total / batches / 1024).toFixed(0)} KiB per batch`);
  for (const [site, bytes] of [...bySite].sort((a, b) => b[1] - a[1]).slice(0, Number(process.env.TOP ?? 40))) {
    console.log(`${(bytes / batches / 1024).toFixed(0).padStart(8)} KiB  ${site}`);
  }
}

const kind = (process.argv[2] ?? "postgresql") as DatabaseKind;
const club = await openTestClub(kind);
const session = new Session();
session.connect();
try {
  let next = 0;
  const batch = () => Array.from({ length: BATCH_SIZE }, () => eventInput(casinoEvent(next++, PLAYERS)));
  for (let b = 0; b < WARMUP; b++) await ingestBatch(club.db, club.scope, batch(), { now: new Date(), publicUrl: PUBLIC_URL });
  if (PROFILE === "cpu") {
    await session.post("Profiler.enable");
    await session.post("Profiler.setSamplingInterval", { interval: 200 });
    await session.post("Profiler.start");
  } else if (PROFILE === "live") {
    // What a batch holds when it writes (what each young collection during it copies): sampled from here to the last batch's flush.
    await session.post("HeapProfiler.enable");
    await session.post("HeapProfiler.startSampling", { samplingInterval: 1024 });
    const flush = PendingWrites.prototype.flush;
    let flushes = 0;
    PendingWrites.prototype.flush = async function (this: PendingWrites, ...args: Parameters<typeof flush>) {
      if (++flushes === COUNT) printSites((await session.post("HeapProfiler.stopSampling")).profile, 1, "live at the flush of the last batch");
      return flush.apply(this, args);
    };
  } else if (PROFILE === "alloc") {
    await session.post("HeapProfiler.enable");
    await session.post("HeapProfiler.startSampling", {
      samplingInterval: 4096,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true,
    });
  }
  const cpu: number[] = [];
  const server: number[] = [];
  for (let b = 0; b < COUNT; b++) {
    const events = batch();
    measuring = true;
    const start = process.cpuUsage();
    const serverStart = backendCpuMs();
    await ingestBatch(club.db, club.scope, events, { now: new Date(), publicUrl: PUBLIC_URL });
    const used = process.cpuUsage(start);
    measuring = false;
    cpu.push((used.user + used.system) / 1000);
    server.push(backendCpuMs() - serverStart);
  }
  // Entries of the last collections arrive after a turn of the event loop.
  await new Promise((resolve) => setTimeout(resolve, 50));
  const sorted = [...cpu].sort((a, b) => a - b);
  const serverSorted = [...server].sort((a, b) => a - b);
  const gcTotal = [...gcMs.values()].reduce((sum, ms) => sum + ms, 0);
  console.log(
    `${kind}: CPU ${sorted[Math.floor(sorted.length / 2)].toFixed(1)} ms/batch median (p25 ${sorted[Math.floor(sorted.length / 4)].toFixed(1)}, mean ${(cpu.reduce((a, b) => a + b, 0) / cpu.length).toFixed(1)}), GC ${(gcTotal / COUNT).toFixed(1)} ms/batch (${[...gcMs].map(([k, ms]) => `${k} ${(ms / COUNT).toFixed(1)}`).join(", ")})${kind === "postgresql" ? `, server CPU ${serverSorted[Math.floor(serverSorted.length / 2)].toFixed(1)} ms/batch median` : ""}`,
  );
  if (PROFILE === "cpu") {
    const { profile } = await session.post("Profiler.stop");
    const file = process.env.PROFILE_FILE ?? "/tmp/batch.cpuprofile";
    writeFileSync(file, JSON.stringify(profile));
    console.log(`CPU profile: ${file}`);
  } else if (PROFILE === "alloc") {
    printSites((await session.post("HeapProfiler.stopSampling")).profile, COUNT, "allocated (sampled; includes building the batch's inputs)");
  }
} finally {
  session.disconnect();
  await club.close();
}
