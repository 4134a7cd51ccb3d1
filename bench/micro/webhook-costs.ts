/**
 * The bench's webhook figure (bench/async-load.ts `webhookRate`) on its
 * own, old and new code alternated in one run: `clube serve` (this tree) on a
 * fresh PostgreSQL database and RabbitMQ vhost; per round, WEBHOOK_EVENTS
 * new players commit that many participant.created while no worker runs,
 * the serve process relays them into the broker, then a cold `clube worker`
 * of one tree consumes the backlog. Per round: sendings per second (first
 * arrival to last), and CPU per sending (µs, from /proc schedstat) of the
 * worker (all threads, from the first arrival on), of the worker's PostgreSQL backends and of this
 * process (the receiver); transactions committed meanwhile. Not a test: run
 * `npx tsx bench/micro/webhook-costs.ts <root-of-old-tree>/ [<root-of-new-tree>/]`
 * (WEBHOOK_PAIRS rounds, 3 by default; WEBHOOK_EVENTS, 2000; WEBHOOK_OUTPUT: a file the workers' output is
 * appended to, e.g. with BENCH_NODE_ARGS=--trace-opt).
 */
import { spawn } from "node:child_process";
import { appendFileSync, readFileSync, readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { OutboxMessage } from "../../server/src/db/entities/index.js";
import { openDatabase } from "../../server/src/db/orm.js";
import { systemClock } from "../../server/src/services.js";
import { ok } from "../../test/async/support/client.js";
import { Endpoints } from "../../test/async/support/endpoints.js";
import { processEnvFor, startServe, startWorker } from "../../test/async/support/processes.js";
import { createStackResources } from "../../test/async/support/stack-resources.js";

const HERE = fileURLToPath(new URL("../../", import.meta.url));
const ROOTS = process.argv.slice(2).length > 0 ? process.argv.slice(2) : [HERE];
if (ROOTS.length === 1) ROOTS.push(HERE);
const PAIRS = Number(process.env.WEBHOOK_PAIRS ?? 3);
const EVENTS = Number(process.env.WEBHOOK_EVENTS ?? 2000);
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** ns of CPU of every thread of `pid` (0 once gone), or of its main thread only. */
function cpuNs(pid: number, mainOnly = false): number {
  let ns = 0;
  try {
    for (const tid of mainOnly ? [String(pid)] : readdirSync(`/proc/${pid}/task`)) {
      try {
        ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, "utf8").split(" ")[0]);
      } catch {
        // a thread that ended meanwhile
      }
    }
  } catch {
    return 0;
  }
  return ns;
}

/** The RabbitMQ server's process, if it runs on this machine. */
const BROKER = readdirSync("/proc")
  .filter((name) => /^\d+$/.test(name))
  .map(Number)
  .find((pid) => {
    try {
      return readFileSync(`/proc/${pid}/comm`, "utf8").trim() === "beam.smp";
    } catch {
      return false;
    }
  });

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function main() {
  const resources = await createStackResources("postgresql+rabbitmq");
  const endpoints = new Endpoints(systemClock);
  const env = { ...(await processEnvFor(resources)), CLUBE_RATE_LIMIT_KEY: "100000000/10" };
  const served = await startServe(env);
  const observer = await openDatabase({ databaseUrl: env.DATABASE_URL, dataDir: env.CLUBE_DATA_DIR });
  const backendPids = () =>
    observer.em().getConnection().execute<{ pid: number }[]>("select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()");
  const excluded = new Set<number>();
  /** Transactions committed in the database: with autocommit statements, about the statements run (the worker's start included). */
  const xacts = async () =>
    Number(
      (await observer.em().getConnection().execute<{ n: string }[]>("select xact_commit as n from pg_stat_database where datname = current_database()"))[0].n,
    );
  const results: Record<string, Array<{ rate: number; worker: number; main: number; pg: number; receiver: number; broker: number; xacts: number }>> = {};
  try {
    const club = served.club;
    // The endpoint's webhook.test needs a worker; the measured ones start on an empty queue after it stopped.
    const first = await startWorker(env);
    const endpoint = await endpoints.connect(club, ["participant.created"]);
    await first.stop("SIGTERM");
    const receiver = endpoint.receiver;
    for (let round = 0; round < PAIRS * ROOTS.length; round++) {
      const root = ROOTS[round % ROOTS.length];
      const events = Array.from({ length: EVENTS }, (_, i) => ({ participant: `wh-${round}-${i}`, type: "session.started", id: `wh-${round}-${i}` }));
      for (let i = 0; i < events.length; i += 500) await ok(club.call("POST", "/v1/events/batch", { body: { events: events.slice(i, i + 500) } }));
      while ((await observer.em().count(OutboxMessage, { relayedAt: null })) > 0) await sleep(100);
      let child: ReturnType<typeof spawn>;
      let seen = receiver.requests.length;
      const arrivals: number[] = [];
      let workerAtFirst = 0;
      let mainAtFirst = 0;
      const watcher = setInterval(() => {
        const at = performance.now();
        for (; seen < receiver.requests.length; seen++) if (receiver.requests[seen].headers["x-clube-event"] === "participant.created") arrivals.push(at);
        // The worker's CPU from the first sending on: its start (compiling, connecting) is not a sending's cost.
        if (workerAtFirst === 0 && arrivals.length > 0) {
          workerAtFirst = cpuNs(child.pid!);
          mainAtFirst = cpuNs(child.pid!, true);
        }
      }, 2);
      // Every backend open now is serve's (or an earlier worker's): only those opened from here on are the measured worker's.
      for (const row of await backendPids()) excluded.add(row.pid);
      const xactsBefore = await xacts();
      const brokerBefore = BROKER === undefined ? 0 : cpuNs(BROKER);
      const selfBefore = cpuNs(process.pid);

      child = spawn(process.execPath, [...(process.env.BENCH_NODE_ARGS?.split(" ").filter(Boolean) ?? []), `${root}server/bin/clube.mjs`, "worker"], {
        cwd: root,
        env: { ...process.env, ...env },
        stdio: ["ignore", "pipe", "pipe"],
      });
      let output = "";
      child.stdout!.on("data", (c: Buffer) => void (output += c.toString()));
      child.stderr!.on("data", (c: Buffer) => void (output += c.toString()));
      const exited = new Promise((resolve) => child.once("exit", resolve));
      const deadline = Date.now() + 120_000;
      while (arrivals.length < EVENTS) {
        if (Date.now() > deadline) throw new Error(`missing webhooks; worker output:\n${output}`);
        await sleep(20);
      }
      clearInterval(watcher);
      const receiverNs = cpuNs(process.pid) - selfBefore;
      const brokerNs = BROKER === undefined ? 0 : cpuNs(BROKER) - brokerBefore;
      const workerNs = cpuNs(child.pid!) - workerAtFirst;
      const mainNs = cpuNs(child.pid!, true) - mainAtFirst;
      const pgNs = (await backendPids()).reduce((sum, row) => sum + (excluded.has(row.pid) ? 0 : cpuNs(row.pid)), 0);
      child.kill("SIGTERM");
      await exited;
      if (process.env.WEBHOOK_OUTPUT) appendFileSync(process.env.WEBHOOK_OUTPUT, `=== ${root} round ${round}\n${output}`);
      await sleep(1500); // backends report their statistics within a second or so of exiting
      const statements = (await xacts()) - xactsBefore;
      const rate = (arrivals.length - 1) / ((arrivals[arrivals.length - 1] - arrivals[0]) / 1000);
      const r = {
        rate: Math.round(rate),
        worker: Math.round(workerNs / 1000 / EVENTS),
        main: Math.round(mainNs / 1000 / EVENTS),
        pg: Math.round(pgNs / 1000 / EVENTS),
        receiver: Math.round(receiverNs / 1000 / EVENTS),
        broker: Math.round(brokerNs / 1000 / EVENTS),
        xacts: statements,
      };
      (results[root] ??= []).push(r);
      console.log(`${root} round ${round}: ${JSON.stringify(r)}`);
    }
  } finally {
    await served.process.stop("SIGTERM");
    await endpoints.stopAll();
    await observer.close();
    await resources.release();
  }
  for (const [root, runs] of Object.entries(results)) {
    const field = (k: keyof (typeof runs)[number]) =>
      `${median(runs.map((r) => r[k]))} [${Math.min(...runs.map((r) => r[k]))}–${Math.max(...runs.map((r) => r[k]))}]`;
    console.log(
      `${root}: sendings/s ${field("rate")}; µs CPU per sending: worker ${field("worker")} (main thread ${field("main")}), its PostgreSQL backends ${field("pg")}, receiver ${field("receiver")}, RabbitMQ (shared: other users count too) ${field("broker")}; transactions ${field("xacts")}`,
    );
  }
}

await main();
