/**
 * Event-ingestion benchmark (`npm run bench [-- --json]`); not a test, never run by vitest.
 *
 * Measured as an outsider would: Clube runs as its own process (`clube serve`,
 * on a fresh database, with the demo casino club it creates: 12 rules,
 * 6 missions), the load comes from this process (autocannon), and in the same
 * run a baseline server (bench/baseline-server.mjs: bare Koa + one
 * transactional INSERT per request; Koa + one 500-row `unnest` INSERT per
 * batch) runs as another process on another fresh database of the same
 * PostgreSQL (or SQLite file). The machine is shared, so absolute figures are
 * noisy: the same-run ratios are the figures to compare.
 *
 * For each database of `BENCH_DATABASES` (default `postgresql,sqlite`), the
 * parts of `BENCH_PARTS` (default `sync,async,participant`):
 * - single events `POST /v1/events` at `BENCH_CONCURRENCY` (32):
 *   events/s, p50, p99, non-2xx, timeouts; the baseline's the same; ratio;
 * - batches `POST /v1/events/batch` of 500: events/s, ratio to the multi-row baseline;
 * - peak RSS of the Clube process during the load (from /proc);
 * - async (bench/async-load.ts), on PostgreSQL + RabbitMQ (`clube serve`
 *   + `clube worker`) and SQLite + the embedded queue (`clube serve` alone):
 *   accept rate and accept → processed lag at `BENCH_ASYNC_RATE` (1,000)
 *   events/s offered for `BENCH_ASYNC_SECONDS` (5) by a load process of its
 *   own (bench/async-load-process.mjs), webhook sendings/s to a
 *   local receiver (`BENCH_WEBHOOKS`, 2,000, committed at once), peak RSS
 *   of each process, CPU per event of the load process, the Clube processes
 *   and (PostgreSQL) the database backends.
 * - participant paths (bench/participant-load.ts): the widget's reads
 *   (`/v1/participants/{id}/progress`, `/v1/me`, `/v1/me/missions`,
 *   `/v1/me/config` with and without `If-None-Match`), redemptions and a mixed
 *   widget session, each beside Koa + one indexed SELECT or one transactional
 *   INSERT; sizes `BENCH_READ_PARTICIPANTS` (400), `BENCH_READS` (20,000 per
 *   path: a read answers in well under a millisecond, so 5,000 lasted a
 *   fraction of a second and their p99 was one GC pause or scheduling stall),
 *   `BENCH_WARM_READS` (500, every path warmed before any is measured),
 *   `BENCH_REDEMPTIONS` (12,000: 4,000 gave the baseline a window of half a
 *   second, whose rate moved by a fifth from run to run); latencies to the
 *   microsecond.
 * Traffic: bets, settlements, deposits and sessions over `BENCH_PARTICIPANTS`
 * (2,000) players, all created by a warm-up before measuring.
 * Sizes (bounded): `BENCH_EVENTS` single events (10,000: at c=32 one stall
 * of the server, a checkpoint of the database or a GC pause, delays the 32
 * requests in flight at once, which out of 3,000 is already 1 %, so the p99
 * of 3,000 was the latency of the single worst stall of a two-second run and
 * swung with it; of 10,000 it is a steady-state tail), `BENCH_BATCHES`
 * batches (40: long enough to include the tables' growth and their statistics
 * being refreshed, which 16 batches in a second and a half did not), after
 * `BENCH_WARM_BATCHES` (40) unmeasured ones on each server, so that batches are
 * measured in the steady state of a running server, not while V8 still
 * compiles the batch path; likewise `BENCH_WARM_EVENTS` (1,000) unmeasured
 * single events at the measured concurrency on each server before the single
 * events (before, only the baseline had 200: Clube's first groups, V8
 * compiling the single path, made its p99 2.1-4.1× the baseline's in the same
 * hour, against 2.1-2.7× warmed, with the baseline's own p99 falling too).
 * Everything on 127.0.0.1.
 */
import { join } from "node:path";
import { randomBase62 } from "../server/src/db/ids.js";
import { processEnvFor, startServe, type ClubeProcess } from "../test/async/support/processes.js";
import { createTestDatabase, type DatabaseKind } from "../test/support/databases.js";
import { benchAsync, type AsyncFigures } from "./async-load.js";
import { drive, type Measured, perSecond, printRows, startBaseline } from "./load.js";
import { benchParticipantPaths, type ParticipantFigures } from "./participant-load.js";
import { peakRss } from "./rss.js";

function positiveInt(name: string, fallback: number): number {
  const raw = process.env[name];
  const value = raw === undefined ? fallback : Number(raw);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer, got ${JSON.stringify(raw)}`);
  return value;
}

const JSON_OUTPUT = process.argv.includes("--json");
const EVENTS = positiveInt("BENCH_EVENTS", 10_000);
const BATCHES = positiveInt("BENCH_BATCHES", 40);
const WARM_BATCHES = positiveInt("BENCH_WARM_BATCHES", 40);
const WARM_EVENTS = positiveInt("BENCH_WARM_EVENTS", 1000);
const CONCURRENCY = positiveInt("BENCH_CONCURRENCY", 32);
const PARTICIPANTS = positiveInt("BENCH_PARTICIPANTS", 2000);
const ASYNC_RATE = positiveInt("BENCH_ASYNC_RATE", 1000);
const ASYNC_SECONDS = positiveInt("BENCH_ASYNC_SECONDS", 5);
const ASYNC_IN_FLIGHT = positiveInt("BENCH_ASYNC_IN_FLIGHT", 64);
const WEBHOOKS = positiveInt("BENCH_WEBHOOKS", 2000);
const READ_PARTICIPANTS = positiveInt("BENCH_READ_PARTICIPANTS", 400);
const READS = positiveInt("BENCH_READS", 20_000);
const WARM_READS = positiveInt("BENCH_WARM_READS", 500);
const REDEMPTIONS = positiveInt("BENCH_REDEMPTIONS", 12_000);
const BATCH_SIZE = 500;
const RUN = randomBase62(6);

const log = (line: string) => process.stderr.write(`${line}\n`);

/** The i-th event of a casino's traffic (deterministic mix) over PARTICIPANTS players. */
function casinoEvent(phase: string, i: number): Record<string, unknown> {
  const participant = `bench-${i % PARTICIPANTS}`;
  const id = `${RUN}-${phase}-${i}`;
  const games = ["video-slots", "live-casino", "crash", "roulette", "fast-games"];
  const game_type = games[i % games.length];
  switch (i % 10) {
    case 0:
      return { participant, type: "deposit.confirmed", id, amount: 20 + (i % 7) * 15, meta: { method: "pix" } };
    case 1:
    case 2:
    case 3:
    case 4:
    case 5:
      return { participant, type: "bet.placed", id, amount: `${1 + (i % 50)}.50`, meta: { game_id: `game-${i % 40}`, game_type } };
    case 6:
    case 7:
    case 8:
      return { participant, type: "bet.settled", id, amount: i % 3 === 0 ? 0 : 4 + (i % 30), meta: { game_type, ...(i % 3 === 0 ? { outcome: "lost" } : {}) } };
    default:
      return { participant, type: "session.started", id };
  }
}

/** A load of POSTs of JSON bodies to one path. */
function posts(load: { url: string; path: string; key?: string; connections: number; amount: number; body(i: number): unknown }): Promise<Measured> {
  return drive({
    url: load.url,
    key: load.key,
    connections: load.connections,
    amount: load.amount,
    steps: [{ method: "POST", path: () => load.path, body: load.body }],
  });
}

interface SyncFigures {
  database: DatabaseKind;
  single: Measured & { events_per_second: number };
  single_baseline: Measured & { requests_per_second: number };
  single_ratio: number;
  batch: Measured & { events_per_second: number };
  batch_baseline: Measured & { rows_per_second: number };
  batch_ratio: number;
  rss_mb: number;
  baseline_rss_mb: number;
}

/** One database's figures; `BENCH_PARTS` (default `sync,async`) chooses which are measured. */
type Figures = { database: DatabaseKind } & Partial<SyncFigures> & {
    /** `Prefer: respond-async` and webhooks, on PostgreSQL + RabbitMQ or SQLite + the embedded queue. */
    async?: AsyncFigures;
    /** The widget's reads and writes (bench/participant-load.ts). */
    participant?: ParticipantFigures;
  };

async function benchDatabase(kind: DatabaseKind): Promise<SyncFigures> {
  const clubeDb = await createTestDatabase(kind);
  const baselineDb = await createTestDatabase(kind);
  let serve: ClubeProcess | undefined;
  let baseline: Awaited<ReturnType<typeof startBaseline>> | undefined;
  try {
    const env = {
      ...(await processEnvFor({
        kind: kind === "sqlite" ? "sqlite+embedded" : "postgresql+rabbitmq",
        database: clubeDb,
        vhost: undefined,
        release: async () => {},
      })),
      // One key drives the whole load: lift its rate limit (3,000 requests per 10 s by default) out of the way.
      CLUBE_RATE_LIMIT_KEY: "100000000/10",
    };
    log(`${kind}: starting clube serve and the baseline server…`);
    const started = await startServe(env);
    serve = started.process;
    const key = started.club.keys.test;
    baseline = await startBaseline(baselineDb.url ?? join(baselineDb.dataDir, "baseline.db"));
    const url = env.CLUBE_PUBLIC_URL;

    log(`${kind}: warm-up (${PARTICIPANTS} players)…`);
    const warmBatches = Math.ceil(PARTICIPANTS / BATCH_SIZE);
    for (let b = 0; b < warmBatches; b++) {
      const response = await fetch(`${url}/v1/events/batch`, {
        method: "POST",
        headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
        body: JSON.stringify({ events: Array.from({ length: BATCH_SIZE }, (_, j) => casinoEvent("warm", b * BATCH_SIZE + j)) }),
      });
      if (response.status !== 200)
        throw new Error(`warm-up batch answered ${response.status}: ${(await response.text()).slice(0, 500)}\n${serve.output().slice(-2000)}`);
    }
    log(`${kind}: single-event warm-up (${WARM_EVENTS} at c=${CONCURRENCY})…`);
    await posts({ url, path: "/v1/events", key, connections: CONCURRENCY, amount: WARM_EVENTS, body: (i) => casinoEvent("warm-single", i) });
    await posts({ url: baseline.url, path: "/single", connections: CONCURRENCY, amount: WARM_EVENTS, body: (i) => casinoEvent("warm-base", i) });

    log(`${kind}: single events, c=${CONCURRENCY}…`);
    const {
      value: single,
      rssMb: [singleRss],
    } = await peakRss([serve.pid], () =>
      posts({ url, path: "/v1/events", key, connections: CONCURRENCY, amount: EVENTS, body: (i) => casinoEvent("single", i) }),
    );
    const {
      value: singleBase,
      rssMb: [baseRss1],
    } = await peakRss([baseline.child.pid!], () =>
      posts({ url: baseline!.url, path: "/single", connections: CONCURRENCY, amount: EVENTS, body: (i) => casinoEvent("base", i) }),
    );
    const batchBody = (phase: string) => (b: number) => ({ events: Array.from({ length: BATCH_SIZE }, (_, j) => casinoEvent(phase, b * BATCH_SIZE + j)) });
    // Steady state, as a server that has run for a while: the batch path's code optimised by V8 before the clock starts
    // (during the first ~40 batches of a fresh process its compiler takes a fifth of the process's CPU), the same for the baseline.
    log(`${kind}: batch warm-up (${WARM_BATCHES} × ${BATCH_SIZE})…`);
    await posts({ url, path: "/v1/events/batch", key, connections: 2, amount: WARM_BATCHES, body: batchBody("warm-batch") });
    await posts({ url: baseline.url, path: "/batch", connections: 2, amount: WARM_BATCHES, body: batchBody("warm-base-batch") });
    log(`${kind}: batches of ${BATCH_SIZE}…`);
    const {
      value: batch,
      rssMb: [batchRss],
    } = await peakRss([serve.pid], () => posts({ url, path: "/v1/events/batch", key, connections: 2, amount: BATCHES, body: batchBody("batch") }));
    const {
      value: batchBase,
      rssMb: [baseRss2],
    } = await peakRss([baseline.child.pid!], () =>
      posts({ url: baseline!.url, path: "/batch", connections: 2, amount: BATCHES, body: batchBody("base-batch") }),
    );
    const singleRate = perSecond(single);
    const baseRate = perSecond(singleBase);
    const batchRate = perSecond(batch, BATCH_SIZE);
    const baseBatchRate = perSecond(batchBase, BATCH_SIZE);
    return {
      database: kind,
      single: { ...single, events_per_second: singleRate },
      single_baseline: { ...singleBase, requests_per_second: baseRate },
      single_ratio: Number((singleRate / baseRate).toFixed(3)),
      batch: { ...batch, events_per_second: batchRate },
      batch_baseline: { ...batchBase, rows_per_second: baseBatchRate },
      batch_ratio: Number((batchRate / baseBatchRate).toFixed(3)),
      rss_mb: Math.max(singleRss, batchRss),
      baseline_rss_mb: Math.max(baseRss1, baseRss2),
    };
  } finally {
    await Promise.allSettled([serve?.stop(), baseline?.stop()]);
    await Promise.allSettled([clubeDb.drop(), baselineDb.drop()]);
  }
}

function printTable(all: Figures[]): void {
  const rows = all.flatMap((f) =>
    (f.single === undefined ? [] : [f as Figures & SyncFigures]).flatMap((f) => [
      [
        f.database,
        `single events c=${CONCURRENCY}`,
        `${f.single.events_per_second} ev/s`,
        `${f.single.p50}`,
        `${f.single.p99}`,
        `${f.single.failed}/${f.single.timeouts}`,
        `${f.rss_mb} MB`,
        `${f.single_ratio}×`,
      ],
      [
        f.database,
        `  baseline Koa + tx INSERT`,
        `${f.single_baseline.requests_per_second} req/s`,
        `${f.single_baseline.p50}`,
        `${f.single_baseline.p99}`,
        `${f.single_baseline.failed}/${f.single_baseline.timeouts}`,
        `${f.baseline_rss_mb} MB`,
        "",
      ],
      [
        f.database,
        `batches of ${BATCH_SIZE}`,
        `${f.batch.events_per_second} ev/s`,
        `${f.batch.p50}`,
        `${f.batch.p99}`,
        `${f.batch.failed}/${f.batch.timeouts}`,
        "",
        `${f.batch_ratio}×`,
      ],
      [
        f.database,
        `  baseline ${BATCH_SIZE}-row INSERT`,
        `${f.batch_baseline.rows_per_second} rows/s`,
        `${f.batch_baseline.p50}`,
        `${f.batch_baseline.p99}`,
        `${f.batch_baseline.failed}/${f.batch_baseline.timeouts}`,
        "",
        "",
      ],
    ]),
  );
  if (rows.length > 0) printSync(rows);
  printAsync(all);
  printParticipant(all);
}

function printSync(rows: string[][]): void {
  console.log(
    `\n${EVENTS} single events at c=${CONCURRENCY}, ${BATCHES} × ${BATCH_SIZE} batched, ${PARTICIPANTS} players, demo casino, node ${process.version}\n`,
  );
  printRows(["database", "measure", "throughput", "p50 ms", "p99 ms", "failed/timeouts", "peak RSS", "ratio"], rows);
}

function printAsync(all: Figures[]): void {
  const asyncRows = all
    .flatMap(({ async: a }) => (a ? [a] : []))
    .map((a) => [
      a.stack,
      `${a.accepted_per_second}/s (${a.accept_ratio}×)`,
      `${a.answer_p50_ms} / ${a.answer_p99_ms}`,
      `${a.lag_p50_ms} / ${a.lag_p99_ms} / ${a.lag_max_ms}`,
      `${a.webhook_sendings_per_second}/s`,
      Object.entries(a.rss_mb)
        .map(([name, mb]) => `${name} ${mb} MB`)
        .join(", "),
      [`load ${a.load_cpu_us_per_event}`, ...Object.entries(a.cpu_us_per_event).map(([name, us]) => `${name} ${us}`)].join(", "),
    ]);
  if (asyncRows.length === 0) return;
  console.log(
    `\nasync: ${ASYNC_RATE} events/s offered for ${ASYNC_SECONDS} s (Prefer: respond-async); webhooks: ${WEBHOOKS} participant.created committed at once, first arrival to last\n`,
  );
  printRows(["stack", "202 accepted", "answer p50/p99 ms", "lag p50/p99/max ms", "webhook sendings", "peak RSS", "CPU µs per event"], asyncRows);
}

function printParticipant(all: Figures[]): void {
  const participantRows = all.flatMap(({ database, participant: p }) =>
    p
      ? p.paths.map((path) => [
          database,
          path.path,
          `${path.clube.per_second}/s`,
          `${path.clube.p50} / ${path.clube.p99}`,
          `${path.baseline.per_second}/s`,
          `${path.baseline.p50} / ${path.baseline.p99}`,
          `${path.clube.failed}`,
          `${path.ratio}×`,
          `${path.p99_ratio}×`,
          `${path.cpu_us.clube} / ${path.cpu_us.baseline}`,
          path.database_cpu_us ? `${path.database_cpu_us.clube} / ${path.database_cpu_us.baseline}` : "",
        ])
      : [],
  );
  if (participantRows.length === 0) return;
  console.log(
    `\nparticipant paths: ${READ_PARTICIPANTS} players, ${READS} reads / ${REDEMPTIONS} redemptions per path at c=${CONCURRENCY}; baselines Koa + one indexed SELECT (reads) or one transactional INSERT (writes)\n`,
  );
  printRows(
    [
      "database",
      "path",
      "Clube",
      "p50/p99 ms",
      "baseline",
      "p50/p99 ms",
      "failed",
      "ratio",
      "p99 ratio",
      "CPU µs/request Clube / baseline",
      "PostgreSQL backends' CPU µs/request",
    ],
    participantRows,
  );
  for (const { database, participant: p } of all) {
    if (p)
      console.log(
        `${database}: coins spent − redemptions answered = ${p.ledger_mismatch}; balances below zero: ${p.negative_balances}; peak RSS ${p.rss_mb} MB`,
      );
  }
}

async function main(): Promise<void> {
  const kinds = (process.env.BENCH_DATABASES ?? "postgresql,sqlite").split(",").map((name) => {
    if (name !== "sqlite" && name !== "postgresql") throw new Error(`BENCH_DATABASES: unknown database ${JSON.stringify(name)}`);
    return name as DatabaseKind;
  });
  const parts = new Set((process.env.BENCH_PARTS ?? "sync,async,participant").split(","));
  for (const part of parts) if (!["sync", "async", "participant"].includes(part)) throw new Error(`BENCH_PARTS: unknown part ${JSON.stringify(part)}`);
  const figures: Figures[] = [];
  for (const kind of kinds) {
    const sync = parts.has("sync") ? await benchDatabase(kind) : undefined;
    if (sync) log(JSON.stringify(sync));
    const asyncFigures = !parts.has("async")
      ? undefined
      : await benchAsync(kind === "postgresql" ? "postgresql+rabbitmq" : "sqlite+embedded", {
          rate: ASYNC_RATE,
          seconds: ASYNC_SECONDS,
          inFlight: ASYNC_IN_FLIGHT,
          webhooks: WEBHOOKS,
          batchSize: BATCH_SIZE,
          event: casinoEvent,
          warmUp: Array.from({ length: PARTICIPANTS }, (_, i) => casinoEvent("warm", i)),
          log,
        });
    if (asyncFigures) log(JSON.stringify(asyncFigures));
    const participant = !parts.has("participant")
      ? undefined
      : await benchParticipantPaths(kind, {
          participants: READ_PARTICIPANTS,
          reads: READS,
          warmReads: WARM_READS,
          redemptions: REDEMPTIONS,
          concurrency: CONCURRENCY,
          log,
        });
    if (participant) log(JSON.stringify(participant));
    figures.push({ database: kind, ...sync, async: asyncFigures, participant });
  }
  if (JSON_OUTPUT) {
    const sizes = { events: EVENTS, concurrency: CONCURRENCY, batches: BATCHES, batch_size: BATCH_SIZE, participants: PARTICIPANTS };
    const asyncSizes = { async_rate: ASYNC_RATE, async_seconds: ASYNC_SECONDS, webhooks: WEBHOOKS };
    const participantSizes = { read_participants: READ_PARTICIPANTS, reads: READS, redemptions: REDEMPTIONS };
    console.log(JSON.stringify({ ...sizes, ...asyncSizes, ...participantSizes, node: process.version, figures }, null, 2));
  } else printTable(figures);
}

await main();
// autocannon and pg sockets may linger
process.exit(0);
