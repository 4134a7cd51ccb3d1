/**
 * The participant's side (`BENCH_PARTS=participant`): the widget's reads and
 * writes against `clube serve` on a fresh database with the demo casino club,
 * each beside its baseline in the same run (bench/baseline-server.mjs:
 * Koa + one indexed SELECT for reads, Koa + one transactional INSERT for writes).
 *
 * Paths: `GET /v1/participants/{id}/progress` (secret key), `GET /v1/me`,
 * `GET /v1/me/missions`, `GET /v1/me/config` without and with `If-None-Match`
 * (headless mode: secret key + `X-Participant`), `POST /v1/redemptions` of a
 * 1-coin reward the bench publishes, and a mixed widget session (config
 * revalidated, profile, missions, a redemption). After the redemptions, the
 * coins taken out must equal the redemptions answered 200, and no balance may
 * be below zero. `BENCH_PATHS` (comma-separated parts of the names, e.g.
 * `progress,missions`) measures only those paths.
 */
import { createRequire } from "node:module";
import { randomBase62 } from "../server/src/db/ids.js";
import { processEnvFor, startServe, type ClubeProcess } from "../test/async/support/processes.js";
import { createTestDatabase, type DatabaseKind } from "../test/support/databases.js";
import { type Baseline, drive, type Measured, perSecond, type Step, startBaseline } from "./load.js";
import { cpuMs, peakRss } from "./rss.js";

const { Client: PgClient } = createRequire(import.meta.url)("pg") as {
  Client: new (config: { connectionString: string }) => {
    connect(): Promise<void>;
    query(sql: string): Promise<{ rows: { pid: number }[] }>;
    end(): Promise<void>;
  };
};

/** The PostgreSQL backends connected to the database at `url` (none for SQLite: the database is in the process). */
async function backendsOf(url: string | undefined): Promise<number[]> {
  if (!url) return [];
  const client = new PgClient({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query("select pid from pg_stat_activity where datname = current_database() and pid <> pg_backend_pid()");
    return rows.map((row) => row.pid);
  } finally {
    await client.end();
  }
}

/** CPU ms of the backends serving `url` while `during` runs (a backend that started meanwhile counts from 0). */
async function backendsCpu<T>(url: string | undefined, during: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const before = new Map((await backendsOf(url)).map((pid) => [pid, cpuMs(pid)]));
  const value = await during();
  const after = await backendsOf(url);
  return { value, ms: after.reduce((sum, pid) => sum + Math.max(0, cpuMs(pid) - (before.get(pid) ?? 0)), 0) };
}

export interface ParticipantOptions {
  participants: number;
  reads: number;
  warmReads: number;
  redemptions: number;
  concurrency: number;
  /** Only the paths whose name contains one of these (case-insensitive; default `BENCH_PATHS`, comma-separated); every path when empty. */
  only?: readonly string[];
  log(line: string): void;
}

export interface PathFigures {
  path: string;
  clube: Measured & { per_second: number };
  baseline: Measured & { per_second: number };
  ratio: number;
  p99_ratio: number;
  /** CPU (user + system) of the Clube process and of the baseline process per answered request, µs: steadier than rates on a shared machine. */
  cpu_us: { clube: number; baseline: number };
  /** PostgreSQL: CPU of the database backends serving each per request, µs (the same machine's other core). */
  database_cpu_us?: { clube: number; baseline: number };
}

export interface ParticipantFigures {
  database: DatabaseKind;
  paths: PathFigures[];
  /** Coins the players lost minus the 1-coin redemptions answered 200 (must be 0). */
  ledger_mismatch: number;
  /** Participants whose coins ended below zero (must be 0). */
  negative_balances: number;
  rss_mb: number;
}

const BENCH_REWARD = "bench-item";
const RUN = randomBase62(6);

async function call(
  url: string,
  key: string,
  method: string,
  path: string,
  body?: unknown,
  participant?: string,
): Promise<{ status: number; headers: Headers; json: any }> {
  const headers: Record<string, string> = { authorization: `Bearer ${key}` };
  if (body !== undefined) headers["content-type"] = "application/json";
  if (participant !== undefined) headers["x-participant"] = participant;
  const response = await fetch(`${url}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await response.text();
  return { status: response.status, headers: response.headers, json: text ? JSON.parse(text) : undefined };
}

async function must(promise: ReturnType<typeof call>, what: string): Promise<any> {
  const answer = await promise;
  if (answer.status >= 300) throw new Error(`${what} answered ${answer.status}: ${JSON.stringify(answer.json).slice(0, 500)}`);
  return answer.json;
}

/** Publishes the demo configuration plus a reward that costs one coin, so every player can redeem many times. */
async function publishBenchReward(url: string, key: string): Promise<void> {
  const { config } = await must(call(url, key, "GET", "/v1/config"), "GET /v1/config");
  config.rewards.push({ code: BENCH_REWARD, title: "Bench item", type: "internal", cost: { currency: "coins", amount: 1 } });
  const draft = await must(call(url, key, "PUT", "/v1/config/draft", config), "PUT /v1/config/draft");
  await must(call(url, key, "POST", "/v1/config/publish", { version: draft.version }), "POST /v1/config/publish");
}

/** Coins of each player, by the API. */
async function coins(url: string, key: string, count: number): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < count; i++) {
    const profile = await must(call(url, key, "GET", `/v1/participants/bench-${i}`), "GET participant");
    const coin = (profile.currencies as Array<Record<string, unknown>>).find((c) => c.code === "coins");
    out.push(Number(coin?.balance ?? 0));
  }
  return out;
}

export async function benchParticipantPaths(kind: DatabaseKind, options: ParticipantOptions): Promise<ParticipantFigures> {
  const { participants, concurrency, log } = options;
  const clubeDb = await createTestDatabase(kind);
  const baselineDb = await createTestDatabase(kind);
  let serve: ClubeProcess | undefined;
  let baseline: Baseline | undefined;
  try {
    const unlimited = "100000000/10";
    const env = {
      ...(await processEnvFor({
        kind: kind === "sqlite" ? "sqlite+embedded" : "postgresql+rabbitmq",
        database: clubeDb,
        vhost: undefined,
        release: async () => {},
      })),
      // One key drives the whole load: lift the rate limits out of the way.
      CLUBE_RATE_LIMIT_KEY: unlimited,
      CLUBE_RATE_LIMIT_PARTICIPANT: unlimited,
    };
    log(`${kind}: starting clube serve and the baseline server…`);
    const started = await startServe(env);
    serve = started.process;
    const key = started.club.keys.test;
    const url = env.CLUBE_PUBLIC_URL;
    baseline = await startBaseline(baselineDb.url ?? `${baselineDb.dataDir}/baseline.db`, { BASELINE_PARTICIPANTS: String(participants) });

    log(`${kind}: ${participants} players (signed up, a deposit, bets), a 1-coin reward…`);
    await publishBenchReward(url, key);
    const events = Array.from({ length: participants }, (_, i) => [
      { participant: `bench-${i}`, type: "user.signed_up", id: `${RUN}-signup-${i}` },
      { participant: `bench-${i}`, type: "deposit.confirmed", id: `${RUN}-deposit-${i}`, amount: 100 },
      { participant: `bench-${i}`, type: "bet.placed", id: `${RUN}-bet-${i}`, amount: 10, meta: { game_type: "video-slots" } },
    ]).flat();
    for (let at = 0; at < events.length; at += 500) {
      await must(call(url, key, "POST", "/v1/events/batch", { events: events.slice(at, at + 500) }), "warm-up batch");
    }
    const configEtag = (await call(url, key, "GET", "/v1/me/config", undefined, "bench-0")).headers.get("etag") ?? "";

    const player = (i: number) => `bench-${i % participants}`;
    const asPlayer = (i: number) => ({ "x-participant": player(i) });
    let redeemed = 0;
    let redemptionKeys = 0;
    const redeem = (tag: string): Step => ({
      method: "POST",
      path: () => "/v1/redemptions",
      body: (i) => ({ participant: player(i), reward: BENCH_REWARD }),
      // Unique across the warm-up and the measured load: a repeated key would answer a duplicate that spends nothing.
      headers: () => ({ "idempotency-key": `${RUN}-${tag}-${redemptionKeys++}` }),
      ok: (status) => status === 200 && ++redeemed > 0,
    });
    const paths: Array<{ name: string; clube: Step[]; baseline: Step[]; amount: number }> = [
      {
        name: "GET /v1/participants/{id}/progress",
        clube: [{ method: "GET", path: (i) => `/v1/participants/${player(i)}/progress` }],
        baseline: [{ method: "GET", path: (i) => `/read/${player(i)}` }],
        amount: options.reads,
      },
      {
        name: "GET /v1/me (headless)",
        clube: [{ method: "GET", path: () => "/v1/me", headers: asPlayer }],
        baseline: [{ method: "GET", path: (i) => `/read/${player(i)}` }],
        amount: options.reads,
      },
      {
        name: "GET /v1/me/missions",
        clube: [{ method: "GET", path: () => "/v1/me/missions", headers: asPlayer }],
        baseline: [{ method: "GET", path: (i) => `/read/${player(i)}` }],
        amount: options.reads,
      },
      {
        name: "GET /v1/me/config",
        clube: [{ method: "GET", path: () => "/v1/me/config", headers: asPlayer }],
        baseline: [{ method: "GET", path: (i) => `/read/${player(i)}` }],
        amount: options.reads,
      },
      {
        name: "GET /v1/me/config, If-None-Match",
        clube: [{ method: "GET", path: () => "/v1/me/config", headers: (i) => ({ ...asPlayer(i), "if-none-match": configEtag }), ok: (s) => s === 304 }],
        baseline: [{ method: "GET", path: (i) => `/read/${player(i)}` }],
        amount: options.reads,
      },
      {
        name: "POST /v1/redemptions",
        clube: [redeem("redeem")],
        baseline: [{ method: "POST", path: () => "/single", body: (i) => ({ participant: player(i), reward: BENCH_REWARD }) }],
        amount: options.redemptions,
      },
      {
        name: "widget session (config 304, me, missions, redemption)",
        clube: [
          { method: "GET", path: () => "/v1/me/config", headers: (i) => ({ ...asPlayer(i), "if-none-match": configEtag }), ok: (s) => s === 304 },
          { method: "GET", path: () => "/v1/me", headers: asPlayer },
          { method: "GET", path: () => "/v1/me/missions", headers: asPlayer },
          redeem("session"),
        ],
        baseline: [
          { method: "GET", path: (i) => `/read/${player(i)}` },
          { method: "GET", path: (i) => `/read/${player(i)}` },
          { method: "GET", path: (i) => `/read/${player(i)}` },
          { method: "POST", path: () => "/single", body: (i) => ({ participant: player(i) }) },
        ],
        amount: options.reads,
      },
    ];

    const before = await coins(url, key, participants);
    let rss = 0;
    const figures: PathFigures[] = [];
    const only = (options.only ?? process.env.BENCH_PATHS?.split(",") ?? []).map((part) => part.toLowerCase()).filter(Boolean);
    const measured = paths.filter((path) => only.length === 0 || only.some((part) => path.name.toLowerCase().includes(part)));
    // Every path is warmed up before any is measured, so the first one measured does not pay for compiling the shared code.
    // Redemption warm-ups spend coins too; they are counted with the measured ones.
    let warmFailed = 0;
    for (const path of measured) {
      const warm = Math.min(options.warmReads, path.amount);
      warmFailed += (await drive({ url, key, connections: concurrency, amount: warm, steps: path.clube })).failed;
      await drive({ url: baseline.url, connections: concurrency, amount: warm, steps: path.baseline });
    }
    if (warmFailed > 0) log(`${kind}: ${warmFailed} failed answers while warming up`);
    for (const path of measured) {
      log(`${kind}: ${path.name}, c=${concurrency}…`);
      const warm = Math.min(options.warmReads, path.amount);
      const warmClube = await drive({ url, key, connections: concurrency, amount: warm, steps: path.clube });
      await drive({ url: baseline.url, connections: concurrency, amount: warm, steps: path.baseline });
      const clubeCpu = cpuMs(serve.pid);
      const {
        value: {
          value: clube,
          rssMb: [peak],
        },
        ms: clubeDatabaseMs,
      } = await backendsCpu(clubeDb.url, () =>
        peakRss([serve!.pid], () => drive({ url, key, connections: concurrency, amount: path.amount, steps: path.clube })),
      );
      const baseCpu = cpuMs(baseline.child.pid!);
      const { value: base, ms: baseDatabaseMs } = await backendsCpu(baselineDb.url, () =>
        drive({ url: baseline!.url, connections: concurrency, amount: path.amount, steps: path.baseline }),
      );
      const cpu_us = {
        clube: Math.round(((cpuMs(serve.pid) - clubeCpu) * 1000) / path.amount),
        baseline: Math.round(((cpuMs(baseline.child.pid!) - baseCpu) * 1000) / path.amount),
      };
      const perRequest = (ms: number) => Math.round((ms * 1000) / path.amount);
      if (warmClube.failed > 0 || clube.failed > 0) log(`${kind}: ${path.name}: ${warmClube.failed + clube.failed} failed answers`);
      rss = Math.max(rss, peak);
      const clubeRate = perSecond(clube);
      const baseRate = perSecond(base);
      figures.push({
        path: path.name,
        clube: { ...clube, per_second: clubeRate },
        baseline: { ...base, per_second: baseRate },
        ratio: Number((clubeRate / baseRate).toFixed(3)),
        p99_ratio: Number((clube.p99 / Math.max(base.p99, 0.1)).toFixed(2)),
        cpu_us,
        ...(kind === "postgresql" ? { database_cpu_us: { clube: perRequest(clubeDatabaseMs), baseline: perRequest(baseDatabaseMs) } } : {}),
      });
    }
    const after = await coins(url, key, participants);
    const spent = before.reduce((sum, c, i) => sum + c - after[i], 0);
    return {
      database: kind,
      paths: figures,
      ledger_mismatch: spent - redeemed,
      negative_balances: after.filter((c) => c < 0).length,
      rss_mb: rss,
    };
  } finally {
    await Promise.allSettled([serve?.stop(), baseline?.stop()]);
    await Promise.allSettled([clubeDb.drop(), baselineDb.drop()]);
  }
}
