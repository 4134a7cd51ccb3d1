/**
 * Event-ingestion benchmark (`npm run bench`); not a test, never run by vitest.
 *
 * Measures, through the HTTP API:
 * - single events (`POST /v1/events`) at a fixed concurrency: throughput and p50/p99 latency;
 * - batches (`POST /v1/events/batch`, 500 events each): events per second;
 * - a same-run baseline: a bare Koa route doing one INSERT per request on the same database,
 *   at the same concurrency, to separate what the database costs from what the service adds.
 *
 * Targets:
 * - `BENCH_URL` (+ `BENCH_KEY`, a secret key of a club configured like the demo casino): a running
 *   server; the baseline needs the database, so it is left out;
 * - otherwise the server is started in this process on each database of `BENCH_DATABASES`
 *   (default `sqlite,postgresql`), each fresh, with a club on the demo casino configuration.
 *
 * Sizes: `BENCH_EVENTS` single events (default 1000), `BENCH_BATCHES` batches of 500 (default 2),
 * `BENCH_CONCURRENCY` (default 16). PostgreSQL databases are made on `BENCH_PG_URL`
 * (default postgres://postgres@127.0.0.1:5432/postgres). Everything is on localhost, in bounded loops.
 */
import { bodyParser } from "@koa/bodyparser";
import Koa from "koa";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { createServer, type RequestListener, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createApp } from "../../server/src/app.js";
import { randomBase62 } from "../../server/src/db/ids.js";
import { openDatabase, type Database, type Dialect } from "../../server/src/db/orm.js";
import { createPostgresDatabase, dropPostgresDatabase } from "../../server/src/db/postgres-admin.js";
import { openServices } from "../../server/src/services.js";
import { readSettings } from "../../server/src/settings.js";
import { createClub } from "../../server/src/usecases/clubs.js";

const BATCH_SIZE = 500;
const PARTICIPANTS = 100;

function positiveInt(name: string, fallback: number): number {
  const raw = process.env[name];
  const value = raw === undefined ? fallback : Number(raw);
  if (!Number.isInteger(value) || value < 1) throw new Error(`${name} must be a positive integer, got ${JSON.stringify(raw)}`);
  return value;
}

const EVENTS = positiveInt("BENCH_EVENTS", 1000);
const BATCHES = positiveInt("BENCH_BATCHES", 2);
const CONCURRENCY = positiveInt("BENCH_CONCURRENCY", 16);
const PG_ADMIN_URL = process.env.BENCH_PG_URL || "postgres://postgres@127.0.0.1:5432/postgres";
/** Keeps event ids of different runs against the same server apart. */
const RUN = randomBase62(6);

/**
 * The i-th event of a casino's traffic: mostly bets in several game categories,
 * settlements, some deposits and sessions, spread over 100 players. Deterministic,
 * so every run sends the same mix.
 */
function casinoEvent(i: number, phase: string): Record<string, unknown> {
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

async function post(url: string, key: string, path: string, body: unknown): Promise<void> {
  const response = await fetch(`${url}${path}`, {
    method: "POST",
    headers: { Authorization: `Bearer ${key}`, "Content-Type": "application/json" },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if (response.status !== 200) throw new Error(`POST ${path} answered ${response.status}: ${text.slice(0, 500)}`);
}

interface Measure {
  events: number;
  seconds: number;
  /** Per request, ms; empty for batches (one request carries 500 events). */
  latencies: number[];
}

/** Runs `count` calls of `task` with at most `concurrency` in flight; records each call's latency. */
async function pool(count: number, concurrency: number, task: (i: number) => Promise<void>): Promise<{ seconds: number; latencies: number[] }> {
  const latencies: number[] = [];
  let next = 0;
  const started = performance.now();
  const worker = async () => {
    while (next < count) {
      const i = next++;
      const begin = performance.now();
      await task(i);
      latencies.push(performance.now() - begin);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, count) }, worker));
  return { seconds: (performance.now() - started) / 1000, latencies };
}

async function singleEvents(url: string, key: string): Promise<Measure> {
  const { seconds, latencies } = await pool(EVENTS, CONCURRENCY, (i) => post(url, key, "/v1/events", casinoEvent(i, "single")));
  return { events: EVENTS, seconds, latencies };
}

async function batches(url: string, key: string): Promise<Measure> {
  const { seconds } = await pool(BATCHES, 1, (b) =>
    post(url, key, "/v1/events/batch", { events: Array.from({ length: BATCH_SIZE }, (_, j) => casinoEvent(b * BATCH_SIZE + j, "batch")) }),
  );
  return { events: BATCHES * BATCH_SIZE, seconds, latencies: [] };
}

/** A bare Koa route, same JSON body parsing, doing one INSERT per request into a table of its own. */
async function baseline(db: Database): Promise<Measure> {
  const knex = db.em().getKnex();
  await knex.schema.createTable("bench_baseline", (table) => {
    table.string("id", 40).primary();
    table.string("participant", 128);
    table.text("body");
  });
  const app = new Koa();
  app.use(bodyParser({ enableTypes: ["json"] }) as unknown as Koa.Middleware);
  app.use(async (ctx) => {
    const body = ctx.request.body as { participant: string };
    await knex("bench_baseline").insert({ id: randomBase62(24), participant: body.participant, body: JSON.stringify(body) });
    ctx.body = { ok: true };
  });
  const server = await listen(app.callback());
  try {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const { seconds, latencies } = await pool(EVENTS, CONCURRENCY, (i) => post(url, "none", "/", casinoEvent(i, "baseline")));
    return { events: EVENTS, seconds, latencies };
  } finally {
    await close(server);
  }
}

async function listen(handler: RequestListener): Promise<Server> {
  const server = createServer(handler);
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => resolve());
  });
  return server;
}

function close(server: Server): Promise<void> {
  return new Promise((resolve) => {
    server.close(() => resolve());
    // fetch keeps connections alive; without this close() waits for them to time out.
    server.closeAllConnections();
  });
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];
}

interface Row {
  database: string;
  measure: string;
  result: Measure;
}

function printTable(rows: Row[]): void {
  const header = ["database", "measure", "events", "seconds", "events/s", "p50 ms", "p99 ms"];
  const lines = rows.map(({ database, measure, result }) => {
    const sorted = [...result.latencies].sort((a, b) => a - b);
    const latency = (p: number) => (sorted.length === 0 ? "-" : percentile(sorted, p).toFixed(1));
    return [database, measure, String(result.events), result.seconds.toFixed(2), (result.events / result.seconds).toFixed(0), latency(50), latency(99)];
  });
  const widths = header.map((title, column) => Math.max(title.length, ...lines.map((line) => line[column].length)));
  const format = (cells: string[]) => `| ${cells.map((cell, column) => cell.padEnd(widths[column])).join(" | ")} |`;
  console.log(format(header));
  console.log(`|${widths.map((width) => "-".repeat(width + 2)).join("|")}|`);
  for (const line of lines) console.log(format(line));
}

/** A fresh database of `dialect` for one run, and how to remove it. */
async function freshDatabase(dialect: Dialect): Promise<{ databaseUrl: string | undefined; dataDir: string; drop(): Promise<void> }> {
  const dataDir = await mkdtemp(join(tmpdir(), "clube-bench-"));
  const removeDir = () => rm(dataDir, { recursive: true, force: true });
  if (dialect === "sqlite") return { databaseUrl: undefined, dataDir, drop: removeDir };
  const name = `clube_bench_${randomBase62(10).toLowerCase()}`;
  const databaseUrl = await createPostgresDatabase(PG_ADMIN_URL, name);
  return {
    databaseUrl,
    dataDir,
    drop: async () => {
      await dropPostgresDatabase(PG_ADMIN_URL, name);
      await removeDir();
    },
  };
}

/** Starts the real service on a fresh database with a demo-casino club, measures it, and removes it all. */
async function benchHosted(dialect: Dialect): Promise<Row[]> {
  const target = await freshDatabase(dialect);
  const db = await openDatabase({ databaseUrl: target.databaseUrl, dataDir: target.dataDir });
  try {
    const config = JSON.parse(await readFile(new URL("../../server/src/demo/casino.json", import.meta.url), "utf8"));
    const { keys } = await createClub(db, { name: "Cassino Benchmark", config });
    const settings = readSettings({ ...process.env, DATABASE_URL: target.databaseUrl ?? "", CLUBE_DATA_DIR: target.dataDir, PORT: "0" });
    const services = await openServices(settings, { db });
    const server = await listen((await createApp(services)).callback());
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      // Warm-up: creates the players, compiles rule expressions, fills caches.
      await pool(PARTICIPANTS, CONCURRENCY, (i) => post(url, keys.test, "/v1/events", casinoEvent(i, "warmup")));
      const rows = [
        { database: dialect, measure: `POST /v1/events, concurrency ${CONCURRENCY}`, result: await singleEvents(url, keys.test) },
        { database: dialect, measure: `POST /v1/events/batch, ${BATCH_SIZE} per batch`, result: await batches(url, keys.test) },
        { database: dialect, measure: `baseline: bare Koa INSERT, concurrency ${CONCURRENCY}`, result: await baseline(db) },
      ];
      return rows;
    } finally {
      await close(server);
      await services.close();
    }
  } finally {
    await db.close();
    await target.drop();
  }
}

/** Against a running server: the club behind BENCH_KEY must have a configuration as rich as the demo casino's. */
async function benchRemote(url: string, key: string): Promise<Row[]> {
  const response = await fetch(`${url}/v1/config`, { headers: { Authorization: `Bearer ${key}` } });
  if (response.status !== 200) throw new Error(`GET /v1/config answered ${response.status}; BENCH_KEY must be a secret key of the club to load`);
  const { config } = (await response.json()) as { config: { rules: unknown[]; missions: unknown[] } };
  if (config.rules.length < 10 || config.missions.length < 5) {
    throw new Error(`the club has ${config.rules.length} rules and ${config.missions.length} missions; publish a configuration like server/src/demo/casino.json first`);
  }
  await pool(PARTICIPANTS, CONCURRENCY, (i) => post(url, key, "/v1/events", casinoEvent(i, "warmup")));
  return [
    { database: "remote", measure: `POST /v1/events, concurrency ${CONCURRENCY}`, result: await singleEvents(url, key) },
    { database: "remote", measure: `POST /v1/events/batch, ${BATCH_SIZE} per batch`, result: await batches(url, key) },
  ];
}

async function main(): Promise<void> {
  const remote = process.env.BENCH_URL;
  let rows: Row[];
  if (remote) {
    const key = process.env.BENCH_KEY;
    if (!key) throw new Error("BENCH_URL needs BENCH_KEY, a secret key of the club to load");
    rows = await benchRemote(remote.replace(/\/+$/, ""), key);
  } else {
    const dialects = (process.env.BENCH_DATABASES ?? "sqlite,postgresql").split(",").map((name) => name.trim());
    rows = [];
    for (const dialect of dialects) {
      if (dialect !== "sqlite" && dialect !== "postgresql") throw new Error(`BENCH_DATABASES: unknown database ${JSON.stringify(dialect)}`);
      console.error(`benchmarking ${dialect}…`);
      rows.push(...(await benchHosted(dialect)));
    }
  }
  console.log(`\n${EVENTS} single events, ${BATCHES} × ${BATCH_SIZE} batched events, demo casino configuration, node ${process.version}\n`);
  printTable(rows);
}

await main();
