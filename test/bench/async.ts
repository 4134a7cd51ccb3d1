/**
 * Async-event and webhook benchmark; not a test, never run by vitest.
 * Run it with `npx tsx test/bench/async.ts`.
 *
 * On each stack — `sqlite+embedded` (`clube serve` alone) and
 * `postgresql+rabbitmq` (`clube serve` plus one `clube worker`), real
 * processes on fresh databases (and a fresh RabbitMQ vhost) — it measures:
 * - a steady load of `Prefer: respond-async` events at each rate of
 *   `BENCH_RATES` (events per second offered, default `25,100`: one the
 *   machines here sustain, one they do not) for `BENCH_SECONDS` (default 10),
 *   with at most `BENCH_IN_FLIGHT` (64) requests open: the 202s per second
 *   achieved and the answer latency;
 * - time from accept to processed, p50/p99/max, from the event log
 *   (`processed_at − received_at`, both stamped by the service);
 * - webhook sendings per second to a local receiver: `BENCH_WEBHOOKS` new
 *   participants (`POST /v1/participants`, each one `participant.created`)
 *   sent at once, timed from the first arrival to the last.
 *
 * Everything runs on localhost and is bounded by the sizes above. The stacks
 * come from `BENCH_STACKS` (default `sqlite+embedded,postgresql+rabbitmq`);
 * PostgreSQL and RabbitMQ are the test suites' (CLUBE_TEST_PG_URL,
 * CLUBE_TEST_AMQP_URL), vhosts made with rabbitmqctl.
 */
import { systemClock } from "../../server/src/services.js";
import { mapLimit } from "../async/support/burst.js";
import { ok, type ClubClient } from "../async/support/client.js";
import { Endpoints, withoutTests, noticesOf } from "../async/support/endpoints.js";
import { readEventLog } from "../async/support/event-log.js";
import { processEnvFor, startServe, startWorker, type ClubeProcess } from "../async/support/processes.js";
import { createStackResources, stackKinds, usesBroker, type StackKind } from "../async/support/stack-resources.js";
import type { Receiver } from "../webhooks/support/receiver.js";

function positiveInt(name: string, fallback: number): number {
  const raw = process.env[name];
  const value = raw === undefined ? fallback : Number(raw);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer, got ${JSON.stringify(raw)}`);
  return value;
}

const RATES = (process.env.BENCH_RATES ?? "25,100").split(",").map((rate) => {
  const value = Number(rate);
  if (!Number.isInteger(value) || value < 1) throw new Error(`BENCH_RATES must list positive integers, got ${JSON.stringify(rate)}`);
  return value;
});
const SECONDS = positiveInt("BENCH_SECONDS", 10);
const IN_FLIGHT = positiveInt("BENCH_IN_FLIGHT", 64);
const WEBHOOKS = positiveInt("BENCH_WEBHOOKS", 500);
/** How long the backlog may take to drain before the run gives up. */
const DRAIN_TIMEOUT_MS = 180_000;
const PLAYERS = 100;

const STACKS: StackKind[] = (process.env.BENCH_STACKS ?? stackKinds.join(",")).split(",").map((name) => {
  if (!(stackKinds as readonly string[]).includes(name)) throw new Error(`BENCH_STACKS: unknown stack ${JSON.stringify(name)} (${stackKinds.join(", ")})`);
  return name as StackKind;
});

/** The i-th event of a load phase: casino bets, settles and deposits over 100 players. */
function casinoEvent(phase: string, i: number): Record<string, unknown> {
  const participant = `bench_jogador_${i % PLAYERS}`;
  const id = `bench-${phase}-${i}`;
  switch (i % 5) {
    case 0:
      return { participant, type: "deposit.confirmed", id, amount: 20 + (i % 7) * 15, currency: "BRL", meta: { method: "pix" } };
    case 4:
      return { participant, type: "bet.settled", id, amount: i % 3 === 0 ? 0 : 12, currency: "BRL", meta: { game_type: "crash" } };
    default:
      return { participant, type: "bet.placed", id, amount: 1 + (i % 25), currency: "BRL", meta: { game_type: i % 2 ? "video-slots" : "crash" } };
  }
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

interface LoadRow {
  stack: StackKind;
  offered: number;
  accepted: number;
  acceptedPerSecond: number;
  answerP50: number;
  answerP99: number;
  processedP50: number;
  processedP99: number;
  processedMax: number;
}

interface WebhookRow {
  stack: StackKind;
  webhooks: number;
  perSecond: number;
}

/** Offers `rate` events a second for SECONDS (open loop, capped at IN_FLIGHT open requests); the accepted ids and answer times. */
async function steadyLoad(club: ClubClient, rate: number): Promise<{ ids: string[]; seconds: number; answers: number[] }> {
  const total = rate * SECONDS;
  const ids: string[] = [];
  const answers: number[] = [];
  const open = new Set<Promise<void>>();
  const started = performance.now();
  for (let i = 0; i < total; i++) {
    const due = started + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait));
    while (open.size >= IN_FLIGHT) await Promise.race(open);
    const sent = performance.now();
    const request = ok(club.call("POST", "/v1/events", { body: casinoEvent(String(rate), i), headers: { Prefer: "respond-async" } }), 202).then((queued) => {
      answers.push(performance.now() - sent);
      ids.push(queued.event_ids[0]);
    });
    const tracked = request.finally(() => open.delete(tracked));
    open.add(tracked);
  }
  await Promise.all(open);
  return { ids, seconds: (performance.now() - started) / 1000, answers };
}

/** Accept → processed, in ms, of every id, once all are processed. */
async function processingTimes(club: ClubClient, ids: string[]): Promise<number[]> {
  const wanted = new Set(ids);
  const deadline = Date.now() + DRAIN_TIMEOUT_MS;
  for (;;) {
    const entries = (await readEventLog(club)).filter((entry) => wanted.has(entry.id));
    if (entries.length === ids.length && entries.every((entry) => entry.status === "processed")) {
      return entries.map((entry) => Date.parse(entry.processed_at!) - Date.parse(entry.received_at)).sort((a, b) => a - b);
    }
    if (Date.now() > deadline) throw new Error(`the backlog did not drain within ${DRAIN_TIMEOUT_MS / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
}

/** Makes WEBHOOKS new participants at once and times their participant.created arrivals at `receiver`. */
async function webhookRate(club: ClubClient, receiver: Receiver): Promise<number> {
  const before = withoutTests(noticesOf(receiver)).length;
  const arrivals: number[] = [];
  const watcher = setInterval(() => {
    const received = withoutTests(noticesOf(receiver)).length - before;
    while (arrivals.length < received) arrivals.push(performance.now());
  }, 5);
  try {
    await mapLimit(
      Array.from({ length: WEBHOOKS }, (_, i) => `bench_webhook_${i}`),
      16,
      (externalId) => ok(club.call("POST", "/v1/participants", { body: { external_id: externalId, display_name: `Jogador ${externalId.slice(-4)}` } })),
    );
    const deadline = Date.now() + DRAIN_TIMEOUT_MS;
    while (arrivals.length < WEBHOOKS) {
      if (Date.now() > deadline) throw new Error(`${WEBHOOKS - arrivals.length} webhooks missing after ${DRAIN_TIMEOUT_MS / 1000} s`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  } finally {
    clearInterval(watcher);
  }
  return (arrivals.length - 1) / ((arrivals[arrivals.length - 1] - arrivals[0]) / 1000);
}

async function runStack(stack: StackKind): Promise<{ loads: LoadRow[]; webhooks: WebhookRow }> {
  const resources = await createStackResources(stack);
  const processes: ClubeProcess[] = [];
  const endpoints = new Endpoints(systemClock);
  try {
    // One key drives the whole load: lift its rate limit (3,000 requests per 10 s by default) out of the way.
    const env = { ...(await processEnvFor(resources)), CLUBE_RATE_LIMIT_KEY: "100000000/10" };
    const served = await startServe(env);
    processes.push(served.process);
    if (usesBroker(stack)) processes.push(await startWorker(env));
    const club = served.club;
    // Times participant.created only: the load's own notices (levels, rewards, missions) are not subscribed.
    const endpoint = await endpoints.connect(club, ["participant.created"]);

    // The players exist before the clock starts, so the load is events only.
    await mapLimit(Array.from({ length: PLAYERS }, (_, i) => `bench_jogador_${i}`), 16, (id) => ok(club.call("POST", "/v1/participants", { body: { external_id: id } })));
    const loads: LoadRow[] = [];
    for (const rate of RATES) {
      process.stderr.write(`${stack}: ${rate} async events/s for ${SECONDS} s…\n`);
      const load = await steadyLoad(club, rate);
      const processed = await processingTimes(club, load.ids);
      const answers = [...load.answers].sort((a, b) => a - b);
      loads.push({
        stack,
        offered: rate,
        accepted: load.ids.length,
        acceptedPerSecond: load.ids.length / load.seconds,
        answerP50: percentile(answers, 50),
        answerP99: percentile(answers, 99),
        processedP50: percentile(processed, 50),
        processedP99: percentile(processed, 99),
        processedMax: processed[processed.length - 1],
      });
    }
    process.stderr.write(`${stack}: ${WEBHOOKS} webhooks…\n`);
    return { loads, webhooks: { stack, webhooks: WEBHOOKS, perSecond: await webhookRate(club, endpoint.receiver) } };
  } finally {
    try {
      await Promise.all(processes.map((running) => running.stop("SIGTERM")));
      await endpoints.stopAll();
    } finally {
      await resources.release();
    }
  }
}

function printTable(header: string[], lines: string[][]): void {
  const widths = header.map((title, column) => Math.max(title.length, ...lines.map((line) => line[column].length)));
  const format = (cells: string[]) => cells.map((cell, column) => (column === 0 ? cell.padEnd(widths[column]) : cell.padStart(widths[column]))).join("  ");
  process.stdout.write(`${format(header)}\n${widths.map((width) => "-".repeat(width)).join("  ")}\n${lines.map(format).join("\n")}\n`);
}

const results = [];
for (const stack of STACKS) results.push(await runStack(stack));

process.stdout.write(`\nAsync events (Prefer: respond-async), ${SECONDS} s per offered rate; accept → processed from the event log\n\n`);
printTable(
  ["stack", "offered/s", "accepted", "202/s", "answer p50 ms", "answer p99 ms", "processed p50 ms", "p99 ms", "max ms"],
  results.flatMap(({ loads }) =>
    loads.map((row) => [
      row.stack,
      String(row.offered),
      String(row.accepted),
      row.acceptedPerSecond.toFixed(1),
      row.answerP50.toFixed(1),
      row.answerP99.toFixed(1),
      String(row.processedP50),
      String(row.processedP99),
      String(row.processedMax),
    ]),
  ),
);
process.stdout.write(`\nWebhook sendings to a local receiver (participant.created, first arrival to last)\n\n`);
printTable(
  ["stack", "webhooks", "sendings/s"],
  results.map(({ webhooks }) => [webhooks.stack, String(webhooks.webhooks), webhooks.perSecond.toFixed(1)]),
);
