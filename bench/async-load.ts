/**
 * The async half of `npm run bench` (bench/run.ts): on one stack —
 * `postgresql+rabbitmq` (`clube serve` plus one `clube worker`) or
 * `sqlite+embedded` (`clube serve` alone, consuming its database queue) —
 * real processes on a fresh database (and RabbitMQ vhost):
 * - once the warm-up's participant.created webhooks arrived, and after one
 *   second of the same load as warm-up (all processed), a steady open-loop
 *   load of `Prefer: respond-async` events at `rate` per second for
 *   `seconds` (at most `inFlight` requests open), offered by a separate
 *   process (async-load-process.mjs): 202s per second achieved, answer
 *   p50/p99, and accept → processed lag p50/p99/max (`processed_at −
 *   received_at`, both stamped by the service, read from its database once
 *   everything is processed);
 * - CPU per accepted event from the first offer until all are processed: of
 *   the load process, of each Clube process and (PostgreSQL) of the database
 *   backends serving them;
 * - webhook sendings per second to a local receiver: batches of events from
 *   `webhooks` new players commit that many `participant.created`; on
 *   RabbitMQ while no worker runs (the backlog waits in the broker, then a
 *   worker starts), so ingestion does not bound the figure; first arrival to last;
 * - peak RSS of every Clube process (the worker's: during the async load).
 */
import { spawn } from "node:child_process";
import { fileURLToPath } from "node:url";
import { Event, OutboxMessage } from "../server/src/db/entities/index.js";
import { openDatabase, type Database } from "../server/src/db/orm.js";
import { systemClock } from "../server/src/services.js";
import { ok, type ClubClient } from "../test/async/support/client.js";
import { Endpoints } from "../test/async/support/endpoints.js";
import { processEnvFor, startServe, startWorker, type ClubeProcess } from "../test/async/support/processes.js";
import { createStackResources, usesBroker, type StackKind } from "../test/async/support/stack-resources.js";
import type { Receiver } from "../test/webhooks/support/receiver.js";
import { percentile } from "./load.js";
import { cpuMs, peakRss } from "./rss.js";

export interface AsyncOptions {
  rate: number;
  seconds: number;
  inFlight: number;
  webhooks: number;
  batchSize: number;
  /** The i-th event of a phase (the same casino traffic as the sync figures). */
  event(phase: string, i: number): Record<string, unknown>;
  /** Events that create the players before the clock starts. */
  warmUp: Array<Record<string, unknown>>;
  log(line: string): void;
}

export interface AsyncFigures {
  stack: StackKind;
  offered_per_second: number;
  accepted: number;
  accepted_per_second: number;
  accept_ratio: number;
  answer_p50_ms: number;
  answer_p99_ms: number;
  lag_p50_ms: number;
  lag_p99_ms: number;
  lag_max_ms: number;
  webhooks: number;
  webhook_sendings_per_second: number;
  /** CPU (user + system) of the load process per offered event, in µs: what offering the load cost the machine. */
  load_cpu_us_per_event: number;
  /** CPU (user + system) per accepted event of each Clube process (`serve`, and `worker` on RabbitMQ) and of the PostgreSQL backends serving them (`postgresql`), in µs, from the first offer until all are processed (ticks of 10 ms). */
  cpu_us_per_event: Record<string, number>;
  /** Peak RSS per process, in MB: `serve`, and `worker` on RabbitMQ. */
  rss_mb: Record<string, number>;
}

/** How long the backlog may take to drain before the run gives up. */
const DRAIN_TIMEOUT_MS = 300_000;

const LOAD_PROCESS = fileURLToPath(new URL("./async-load-process.mjs", import.meta.url));

/** The async warm-up's phase name: its ids (`…-asyncwarm-i`) do not match the measured phase's (`…-async-i`). */
const ASYNC_WARM_PHASE = "asyncwarm";

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function sendBatches(club: ClubClient, events: Array<Record<string, unknown>>, batchSize: number): Promise<void> {
  for (let i = 0; i < events.length; i += batchSize) {
    await ok(club.call("POST", "/v1/events/batch", { body: { events: events.slice(i, i + batchSize) } }));
  }
}

interface LoadRun {
  accepted: number;
  seconds: number;
  answers: number[];
  /** CPU (user + system) the load process spent offering the load. */
  cpuMs: number;
}

/**
 * Offers `rate` events a second for `seconds` (open loop, capped at `inFlight` open requests) from a separate
 * process (bench/async-load-process.mjs), as an outside client would; the answer times, sorted.
 */
async function steadyLoad(club: ClubClient, o: AsyncOptions, phase: string, seconds: number): Promise<LoadRun> {
  const job = {
    url: club.url,
    path: "/v1/events",
    headers: { authorization: `Bearer ${club.keys.test}`, "content-type": "application/json", prefer: "respond-async" },
    rate: o.rate,
    inFlight: o.inFlight,
    expect: 202,
    bodies: Array.from({ length: o.rate * seconds }, (_, i) => JSON.stringify(o.event(phase, i))),
  };
  const child = spawn(process.execPath, [LOAD_PROCESS], { stdio: ["pipe", "pipe", "pipe"] });
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (chunk: Buffer) => void (stdout += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => void (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.once("exit", (code) => resolve(code)));
  child.stdin!.end(JSON.stringify(job));
  const code = await exited;
  if (code !== 0) throw new Error(`the load process exited with ${code}:\n${stderr}`);
  const run = JSON.parse(stdout) as {
    accepted: number;
    failed: number;
    failures: Record<string, number>;
    first_failure?: string;
    seconds: number;
    answers_ms: number[];
    cpu_ms: number;
  };
  if (run.failed > 0)
    throw new Error(`${run.failed} of ${job.bodies.length} async events not accepted (${JSON.stringify(run.failures)}); first: ${run.first_failure}`);
  return { accepted: run.accepted, seconds: run.seconds, answers: run.answers_ms, cpuMs: run.cpu_ms };
}

/** Accept → processed (ms) of the club's async events, once none is queued any more; read from the database, not the API, so polling adds no load. */
async function lags(observer: Database, clubId: string, phase: string, expected: number): Promise<number[]> {
  const where = { clubId, externalEventId: { $like: `%-${phase}-%` } };
  await drained(observer, where, expected);
  const rows = await observer.em().find(Event, where, { fields: ["receivedAt", "processedAt"], disableIdentityMap: true });
  return rows.map((row) => row.processedAt!.getTime() - row.receivedAt.getTime()).sort((a, b) => a - b);
}

/**
 * The PostgreSQL backends serving the bench database (the Clube processes' pools; the observer's own is idle
 * meanwhile), for their CPU; none on SQLite (the database is in the Clube process).
 */
async function databaseBackends(observer: Database): Promise<number[]> {
  if (observer.dialect !== "postgresql") return [];
  const rows = await observer
    .em()
    .getConnection()
    .execute<{ pid: number }[]>("select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()");
  return rows.map((row) => row.pid);
}

/** Waits until `expected` events matching `where` are processed. */
async function drained(observer: Database, where: { clubId: string; externalEventId: { $like: string } }, expected: number): Promise<void> {
  const deadline = Date.now() + DRAIN_TIMEOUT_MS;
  while ((await observer.em().count(Event, { ...where, status: "processed" })) < expected) {
    if (Date.now() > deadline) throw new Error(`the async backlog did not drain within ${DRAIN_TIMEOUT_MS / 1000} s`);
    await sleep(250);
  }
}

/** Waits until `receiver` got `count` requests of webhook event `type`. */
async function arrived(receiver: Receiver, type: string, count: number): Promise<void> {
  const deadline = Date.now() + DRAIN_TIMEOUT_MS;
  let seen = 0;
  let looked = 0;
  while (seen < count) {
    for (; looked < receiver.requests.length; looked++) if (receiver.requests[looked].headers["x-clube-event"] === type) seen++;
    if (seen >= count) break;
    if (Date.now() > deadline) throw new Error(`${count - seen} ${type} webhooks missing after ${DRAIN_TIMEOUT_MS / 1000} s`);
    await sleep(50);
  }
}

/**
 * Events of `webhooks` new players, in batches: that many participant.created
 * committed; first arrival to last. `hold` runs around the commits: on
 * RabbitMQ the worker is stopped meanwhile and started once every row is in
 * the broker, so the figure is the sending rate, not the rate of ingestion.
 */
async function webhookRate(club: ClubClient, receiver: Receiver, o: AsyncOptions, hold: (commit: () => Promise<void>) => Promise<void>): Promise<number> {
  // Only the requests new since the last look, judged by their X-Clube-Event header: parsing
  // every body received so far each time would make the receiver's process the bottleneck.
  let seen = receiver.requests.length;
  const arrivals: number[] = [];
  const watcher = setInterval(() => {
    const at = performance.now();
    for (; seen < receiver.requests.length; seen++) if (receiver.requests[seen].headers["x-clube-event"] !== "webhook.test") arrivals.push(at);
  }, 2);
  try {
    const events = Array.from({ length: o.webhooks }, (_, i) => ({ participant: `bench-webhook-${i}`, type: "session.started", id: `bench-webhook-${i}` }));
    await hold(() => sendBatches(club, events, o.batchSize));
    const deadline = Date.now() + DRAIN_TIMEOUT_MS;
    while (arrivals.length < o.webhooks) {
      if (Date.now() > deadline) throw new Error(`${o.webhooks - arrivals.length} webhooks missing after ${DRAIN_TIMEOUT_MS / 1000} s`);
      await sleep(50);
    }
  } finally {
    clearInterval(watcher);
  }
  return (arrivals.length - 1) / ((arrivals[arrivals.length - 1] - arrivals[0]) / 1000);
}

export async function benchAsync(stack: StackKind, o: AsyncOptions): Promise<AsyncFigures> {
  const resources = await createStackResources(stack);
  const processes: ClubeProcess[] = [];
  const endpoints = new Endpoints(systemClock);
  let observer: Database | undefined;
  try {
    // One key drives the whole load: lift its rate limit (3,000 requests per 10 s by default) out of the way.
    const env = { ...(await processEnvFor(resources)), CLUBE_RATE_LIMIT_KEY: "100000000/10" };
    const served = await startServe(env);
    processes.push(served.process);
    if (usesBroker(stack)) processes.push(await startWorker(env));
    observer = await openDatabase({ databaseUrl: env.DATABASE_URL, dataDir: env.CLUBE_DATA_DIR });
    const club = served.club;
    // Times participant.created only: the load's own notices (levels, rewards, missions) are not subscribed.
    const endpoint = await endpoints.connect(club, ["participant.created"]);
    o.log(`${stack}: warm-up (${o.warmUp.length} events)…`);
    await sendBatches(club, o.warmUp, o.batchSize);
    // The warm-up's new players are sent as participant.created: the load starts once they all arrived, or the
    // worker would still be sending them while the load is measured (on RabbitMQ most of the first seconds' CPU).
    await arrived(endpoint.receiver, "participant.created", new Set(o.warmUp.map((event) => event.participant)).size);

    // The async path warmed up first, as in a service that has been running: at the rate offered for a second, all
    // processed. Measured from cold, the first seconds' CPU went largely to compiling its code (V8's threads).
    o.log(`${stack}: async warm-up (${o.rate} events)…`);
    const warm = await steadyLoad(club, o, ASYNC_WARM_PHASE, 1);
    await drained(observer, { clubId: club.clubId, externalEventId: { $like: `%-${ASYNC_WARM_PHASE}-%` } }, warm.accepted);

    const { value, rssMb } = await peakRss(
      processes.map((p) => p.pid),
      async () => {
        o.log(`${stack}: ${o.rate} async events/s offered for ${o.seconds} s…`);
        const cpuBefore = processes.map((p) => cpuMs(p.pid));
        const backends = await databaseBackends(observer!);
        const backendsBefore = backends.map(cpuMs);
        const load = await steadyLoad(club, o, "async", o.seconds);
        const processed = await lags(observer!, club.clubId, "async", load.accepted);
        // From the first offer until every accepted event is processed: what accepting and processing them cost each process.
        const cpu = processes.map((p, i) => cpuMs(p.pid) - cpuBefore[i]);
        const backendsCpu = backends.reduce((sum, pid, i) => sum + Math.max(0, cpuMs(pid) - backendsBefore[i]), 0);
        o.log(`${stack}: ${o.webhooks} webhooks…`);
        const hold = async (commit: () => Promise<void>) => {
          if (!usesBroker(stack)) return commit();
          await processes.pop()!.stop("SIGTERM");
          await commit();
          while ((await observer!.em().count(OutboxMessage, { relayedAt: null })) > 0) await sleep(100);
          processes.push(await startWorker(env));
        };
        return { load, processed, cpu, backends: backends.length, backendsCpu, webhooksPerSecond: await webhookRate(club, endpoint.receiver, o, hold) };
      },
    );
    const { load, processed } = value;
    const acceptedPerSecond = load.accepted / load.seconds;
    return {
      stack,
      offered_per_second: o.rate,
      accepted: load.accepted,
      accepted_per_second: Math.round(acceptedPerSecond),
      accept_ratio: Number((acceptedPerSecond / o.rate).toFixed(3)),
      answer_p50_ms: Number(percentile(load.answers, 50).toFixed(1)),
      answer_p99_ms: Number(percentile(load.answers, 99).toFixed(1)),
      lag_p50_ms: percentile(processed, 50),
      lag_p99_ms: percentile(processed, 99),
      lag_max_ms: processed[processed.length - 1] ?? 0,
      webhooks: o.webhooks,
      webhook_sendings_per_second: Math.round(value.webhooksPerSecond),
      load_cpu_us_per_event: Math.round((load.cpuMs * 1000) / (o.rate * o.seconds)),
      cpu_us_per_event: {
        ...Object.fromEntries(processes.map((p, i) => [i === 0 ? "serve" : "worker", Math.round((value.cpu[i] * 1000) / load.accepted)])),
        ...(value.backends === 0 ? {} : { postgresql: Math.round((value.backendsCpu * 1000) / load.accepted) }),
      },
      rss_mb: Object.fromEntries(processes.map((p, i) => [i === 0 ? "serve" : "worker", rssMb[i]])),
    };
  } finally {
    try {
      await Promise.allSettled(processes.map((running) => running.stop("SIGTERM")));
      await endpoints.stopAll();
      await observer?.close();
    } finally {
      await resources.release();
    }
  }
}
