/**
 * CPU of `clube serve` per `POST /v1/events/batch` of 500 (the bench's casino
 * mix), measured from outside as the bench runs it: the real process on a
 * fresh database, its CPU read off /proc/<pid>/task/<tid>/schedstat (ns),
 * split into the main thread and V8's other threads (GC, compiler). Several
 * start-flag variants run alternately in pairs on a shared machine, and the
 * medians are printed. Not a test: run
 * `npx tsx bench/micro/http-batch-costs.ts postgresql|sqlite`.
 * HTTP_VARIANTS: `;`-separated node flags per variant (`-` = none; default
 * `-`; a `NAME=value` word among them is set in serve's environment instead,
 * e.g. `MALLOC_ARENA_MAX=2`), HTTP_PAIRS rounds (3), HTTP_WARMUP batches before measuring (4: the
 * players' creation, as the bench), HTTP_BATCHES measured (40), 2 in flight;
 * HTTP_OUTPUT: a file the processes' output is appended to (e.g. with `--trace-deopt`).
 * HTTP_SINGLE=n: after the batches, n single events `POST /v1/events` at 32 in
 * flight, CPU per event printed too (the per-request cost of the HTTP stack).
 */
import { appendFileSync, readFileSync, readdirSync } from "node:fs";
import { createRequire } from "node:module";
import { processEnvFor, startServe } from "../../test/async/support/processes.js";
import { createTestDatabase, type DatabaseKind } from "../../test/support/databases.js";
import { casinoEvent } from "./casino-mix.js";

const KIND = (process.argv[2] ?? "postgresql") as DatabaseKind;
const VARIANTS = (process.env.HTTP_VARIANTS ?? "-").split(";").map((v) => v.trim());
const PAIRS = Number(process.env.HTTP_PAIRS ?? 3);
const WARMUP = Number(process.env.HTTP_WARMUP ?? 4);
const BATCHES = Number(process.env.HTTP_BATCHES ?? 40);
const BATCH_SIZE = 500;
const PLAYERS = 2000;
const IN_FLIGHT = 2;
const SINGLE = Number(process.env.HTTP_SINGLE ?? 0);
/** HTTP_IDLE_MS=n: after the warm-up, the CPU of serve and its backends over n ms without requests, printed. */
const IDLE_MS = Number(process.env.HTTP_IDLE_MS ?? 0);
const SINGLE_IN_FLIGHT = 32;

/** ns of CPU per thread of `pid`: the main thread (tid = pid) and the sum of the others. */
function threadCpu(pid: number): { main: number; others: number } {
  let main = 0;
  let others = 0;
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      const ns = Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, "utf8").split(" ")[0]);
      if (Number(tid) === pid) main += ns;
      else others += ns;
    } catch {
      // a thread that ended meanwhile
    }
  }
  return { main, others };
}

/**
 * ns of CPU of the PostgreSQL backends serving database `url` (serve's
 * connections), by pid, read off /proc/<pid>/schedstat: on this 2-core
 * machine the backend's CPU is as costly as Node's. Empty for SQLite.
 */
const lastQueries = new Map<number, string>();
async function backendCpu(url: string | undefined): Promise<Map<number, number>> {
  const cpu = new Map<number, number>();
  if (url === undefined) return cpu;
  const { Client } = createRequire(import.meta.url)("pg") as {
    Client: new (config: { connectionString: string }) => {
      connect(): Promise<void>;
      end(): Promise<void>;
      query(text: string, values: unknown[]): Promise<{ rows: { pid: number }[] }>;
    };
  };
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query(
      "select pid, left(regexp_replace(query, '\\s+', ' ', 'g'), 90) as query from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()",
      [],
    );
    for (const { pid, query } of rows as { pid: number; query: string }[]) {
      lastQueries.set(pid, query);
      try {
        cpu.set(pid, Number(readFileSync(`/proc/${pid}/schedstat`, "utf8").split(" ")[0]));
      } catch {
        // a backend that ended meanwhile
      }
    }
  } finally {
    await client.end();
  }
  return cpu;
}

/** ns of backend CPU spent between two backendCpu readings (a backend new since `before` counts from 0). */
function backendDelta(before: Map<number, number>, after: Map<number, number>): number {
  let ns = 0;
  for (const [pid, value] of after) ns += value - (before.get(pid) ?? 0);
  return ns;
}

function peakRssMb(pid: number): number {
  const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return hwm ? Math.round(Number(hwm[1]) / 1024) : 0;
}

interface Run {
  mainMs: number;
  othersMs: number;
  totalMs: number;
  /** ms of PostgreSQL backend CPU per batch (0 on SQLite). */
  backendMs: number;
  eventsPerSecond: number;
  rssMb: number;
  responseBytes: number;
  /** µs of CPU (all threads) per single event, when HTTP_SINGLE is set. */
  singleUs: number;
}

let offset = 0;
async function runOnce(flags: string): Promise<Run> {
  const words = flags === "-" ? [] : flags.split(" ").filter(Boolean);
  const environment = Object.fromEntries(words.filter((w) => /^[A-Z_]+=/.test(w)).map((w) => [w.slice(0, w.indexOf("=")), w.slice(w.indexOf("=") + 1)]));
  process.env.BENCH_NODE_ARGS = words.filter((w) => !/^[A-Z_]+=/.test(w)).join(" ");
  const db = await createTestDatabase(KIND);
  const env = {
    ...(await processEnvFor({ kind: KIND === "sqlite" ? "sqlite+embedded" : "postgresql+rabbitmq", database: db, vhost: undefined, release: async () => {} })),
    CLUBE_RATE_LIMIT_KEY: "100000000/10",
    ...environment,
  } as Parameters<typeof startServe>[0];
  const { process: serve, club } = await startServe(env);
  const key = club.keys.test;
  const url = `${env.CLUBE_PUBLIC_URL}/v1/events/batch`;
  try {
    const bodies = Array.from({ length: WARMUP + BATCHES }, (_, b) =>
      JSON.stringify({ events: Array.from({ length: BATCH_SIZE }, (_, j) => casinoEvent(offset + b * BATCH_SIZE + j, PLAYERS)) }),
    );
    offset += bodies.length * BATCH_SIZE;
    let responseBytes = 0;
    const send = async (body: string) => {
      const response = await fetch(url, { method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body });
      const text = await response.text();
      if (response.status !== 200) throw new Error(`batch answered ${response.status}: ${text.slice(0, 300)}`);
      responseBytes = text.length;
    };
    for (let b = 0; b < WARMUP; b++) await send(bodies[b]);
    for (let round = 0; round < 2 && IDLE_MS > 0; round++) {
      // The backends' CPU while serve has no request: its pollers' and relay's share of the figure below.
      const idleBefore = await backendCpu(db.url);
      const idleMain = threadCpu(serve.pid);
      await new Promise((resolve) => setTimeout(resolve, IDLE_MS));
      const idleMainAfter = threadCpu(serve.pid);
      console.error(
        `  idle ${IDLE_MS} ms: backends ${(backendDelta(idleBefore, await backendCpu(db.url)) / 1e6).toFixed(1)} ms CPU, serve ${((idleMainAfter.main + idleMainAfter.others - idleMain.main - idleMain.others) / 1e6).toFixed(1)} ms CPU`,
      );
    }
    const backendBefore = await backendCpu(db.url);
    const before = threadCpu(serve.pid);
    const started = performance.now();
    let next = WARMUP;
    await Promise.all(
      Array.from({ length: IN_FLIGHT }, async () => {
        while (next < bodies.length) await send(bodies[next++]);
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    const after = threadCpu(serve.pid);
    const backendAfter = await backendCpu(db.url);
    const backendMs = backendDelta(backendBefore, backendAfter) / 1e6 / BATCHES;
    if (process.env.HTTP_BACKENDS) {
      // Each backend's share, to tell the batches' connections from the others (LISTEN, relay, jobs).
      for (const [pid, ns] of backendAfter)
        console.error(`  backend ${pid}: ${((ns - (backendBefore.get(pid) ?? 0)) / 1e6 / BATCHES).toFixed(2)} ms/batch  ${lastQueries.get(pid)}`);
    }
    const mainMs = (after.main - before.main) / 1e6 / BATCHES;
    const othersMs = (after.others - before.others) / 1e6 / BATCHES;
    let singleUs = 0;
    if (SINGLE > 0) {
      const events = Array.from({ length: SINGLE }, (_, i) => JSON.stringify(casinoEvent(offset + i, PLAYERS)));
      offset += SINGLE;
      const single = `${env.CLUBE_PUBLIC_URL}/v1/events`;
      const cpu = threadCpu(serve.pid);
      let i = 0;
      await Promise.all(
        Array.from({ length: SINGLE_IN_FLIGHT }, async () => {
          while (i < events.length) {
            const response = await fetch(single, {
              method: "POST",
              headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
              body: events[i++],
            });
            if (response.status !== 200) throw new Error(`event answered ${response.status}: ${(await response.text()).slice(0, 300)}`);
            await response.arrayBuffer();
          }
        }),
      );
      const end = threadCpu(serve.pid);
      singleUs = (end.main + end.others - cpu.main - cpu.others) / 1e3 / SINGLE;
    }
    return {
      mainMs,
      othersMs,
      totalMs: mainMs + othersMs,
      backendMs,
      eventsPerSecond: (BATCHES * BATCH_SIZE) / seconds,
      rssMb: peakRssMb(serve.pid),
      responseBytes,
      singleUs,
    };
  } finally {
    await serve.stop();
    if (process.env.HTTP_OUTPUT) appendFileSync(process.env.HTTP_OUTPUT, serve.output());
    await db.drop();
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const runs = new Map<string, Run[]>(VARIANTS.map((v) => [v, []]));
for (let pair = 0; pair < PAIRS; pair++) {
  for (const variant of VARIANTS) {
    const run = await runOnce(variant);
    runs.get(variant)!.push(run);
    console.error(
      `${KIND} ${variant}: total ${run.totalMs.toFixed(1)} ms/batch (main ${run.mainMs.toFixed(1)}, others ${run.othersMs.toFixed(1)}), backend ${run.backendMs.toFixed(1)} ms/batch, ${Math.round(run.eventsPerSecond)} ev/s, peak RSS ${run.rssMb} MB, response ${run.responseBytes} B${SINGLE ? `, single ${run.singleUs.toFixed(0)} µs/event` : ""}`,
    );
  }
}
console.log(`\n${KIND}: ${PAIRS} alternated runs, ${WARMUP} warm-up + ${BATCHES} measured batches of ${BATCH_SIZE}, medians:`);
for (const [variant, list] of runs) {
  const m = (pick: (r: Run) => number) => median(list.map(pick));
  console.log(
    `${variant.padEnd(40)} total ${m((r) => r.totalMs).toFixed(1)} ms/batch  main ${m((r) => r.mainMs).toFixed(1)}  others ${m((r) => r.othersMs).toFixed(1)}  backend ${m((r) => r.backendMs).toFixed(1)}  ` +
      `${Math.round(m((r) => r.eventsPerSecond))} ev/s  RSS ${m((r) => r.rssMb)} MB` +
      (SINGLE ? `  single ${m((r) => r.singleUs).toFixed(0)} µs/event` : ""),
  );
}
process.exit(0);
