/**
 * The request pipeline's cost (Koa, routing, auth, rate limits, body parser,
 * serialisation) per participant path, old and new code alternated in one
 * run: `clube serve` of each tree on its own fresh database; per round and
 * per tree, PIPELINE_REQUESTS requests of each path at c=32 (after a warm-up
 * round), and the server's CPU per request (µs, user + system, from
 * /proc/<pid>/stat). Paths: `GET /v1/me/config` with a matching
 * `If-None-Match` (a 304: little but the pipeline), `GET /v1/me` headless
 * (secret key + X-Participant) and with a participant token, and a keyed
 * `POST /v1/redemptions` of a 1-coin reward; the participant reads `GET /v1/me/missions`,
 * `GET /v1/me/config` (a 200) and `GET /v1/participants/{id}/progress`. Not a test: run
 * `npx tsx bench/micro/pipeline-costs.ts [<root-of-a-tree>/ …]` (this tree without one)
 * (PIPELINE_DATABASE sqlite|postgresql, default sqlite; PIPELINE_PAIRS rounds, 3;
 * PIPELINE_REQUESTS, 3000; PIPELINE_PATHS, comma-separated parts of the names).
 */
import { spawn, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { randomBase62 } from "../../server/src/db/ids.js";
import { freePort } from "../../test/e2e/clube-command.js";
import { createTestDatabase, type DatabaseKind } from "../../test/support/databases.js";
import { drive, type Step } from "../load.js";
import { cpuMs } from "../rss.js";

const HERE = fileURLToPath(new URL("../../", import.meta.url));
const ROOTS = process.argv.slice(2).length > 0 ? process.argv.slice(2) : [HERE];
const KIND = (process.env.PIPELINE_DATABASE ?? "sqlite") as DatabaseKind;
const PAIRS = Number(process.env.PIPELINE_PAIRS ?? 3);
const REQUESTS = Number(process.env.PIPELINE_REQUESTS ?? 3000);
const ONLY = (process.env.PIPELINE_PATHS ?? "")
  .split(",")
  .map((part) => part.trim().toLowerCase())
  .filter(Boolean);
const PLAYERS = 400;
const REWARD = "bench-item";
const DEMO_BANNER = /^ {2}demo club (club_\w+) — test key: (cf_test_\w+)$/m;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

interface Served {
  root: string;
  child: ChildProcess;
  url: string;
  key: string;
  token: string;
  etag: string;
  drop(): Promise<void>;
}

async function call(url: string, key: string, method: string, path: string, body?: unknown, participant?: string): Promise<Response> {
  const headers: Record<string, string> = { authorization: `Bearer ${key}` };
  if (body !== undefined) headers["content-type"] = "application/json";
  if (participant) headers["x-participant"] = participant;
  const res = await fetch(`${url}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${await res.text()}`);
  return res;
}

async function serve(root: string): Promise<Served> {
  const database = await createTestDatabase(KIND);
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const env: Record<string, string> = { ...process.env } as Record<string, string>;
  for (const name of ["DATABASE_URL", "CLUBE_DATA_DIR", "AMQP_URL", "CLUBE_REDIS_URL"]) delete env[name];
  Object.assign(env, {
    CLUBE_DATA_DIR: database.dataDir,
    PORT: port,
    CLUBE_PUBLIC_URL: url,
    CLUBE_RATE_LIMIT_KEY: "100000000/10",
    CLUBE_RATE_LIMIT_PARTICIPANT: "100000000/10",
  });
  if (database.url) env.DATABASE_URL = database.url;
  const child = spawn(process.execPath, [...(process.env.BENCH_NODE_ARGS?.split(" ").filter(Boolean) ?? []), "server/bin/clube.mjs", "serve"], {
    cwd: root,
    env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let output = "";
  child.stdout!.on("data", (chunk: Buffer) => void (output += chunk.toString()));
  child.stderr!.on("data", (chunk: Buffer) => void (output += chunk.toString()));
  const deadline = Date.now() + 120_000;
  while (!DEMO_BANNER.test(output)) {
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`clube serve of ${root} did not start:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const key = DEMO_BANNER.exec(output)![2];
  const run = randomBase62(6);
  const { config } = await (await call(url, key, "GET", "/v1/config")).json();
  config.rewards.push({ code: REWARD, title: "Bench item", type: "internal", cost: { currency: "coins", amount: 1 } });
  const draft = (await (await call(url, key, "PUT", "/v1/config/draft", config)).json()) as { version: number };
  await call(url, key, "POST", "/v1/config/publish", { version: draft.version });
  const events = Array.from({ length: PLAYERS }, (_, i) => [
    { participant: `bench-${i}`, type: "user.signed_up", id: `${run}-signup-${i}` },
    { participant: `bench-${i}`, type: "deposit.confirmed", id: `${run}-deposit-${i}`, amount: 100 },
  ]).flat();
  for (let at = 0; at < events.length; at += 500) await call(url, key, "POST", "/v1/events/batch", { events: events.slice(at, at + 500) });
  const token = ((await (await call(url, key, "POST", "/v1/participants/bench-0/token", { ttl_seconds: 86_400 })).json()) as { token: string }).token;
  const etag = (await call(url, key, "GET", "/v1/me/config", undefined, "bench-0")).headers.get("etag") ?? "";
  return {
    root,
    child,
    url,
    key,
    token,
    etag,
    async drop() {
      child.kill("SIGTERM");
      await new Promise((resolve) => child.once("exit", resolve));
      await database.drop();
    },
  };
}

function paths(served: Served): Array<{ name: string; key: string; steps: Step[] }> {
  const player = (i: number) => ({ "x-participant": `bench-${i % PLAYERS}` });
  let keys = 0;
  const run = randomBase62(6);
  const all: Array<{ name: string; key: string; steps: Step[] }> = [
    {
      name: "me/config 304",
      key: served.key,
      steps: [{ method: "GET", path: () => "/v1/me/config", headers: (i) => ({ ...player(i), "if-none-match": served.etag }), ok: (s) => s === 304 }],
    },
    { name: "me headless", key: served.key, steps: [{ method: "GET", path: () => "/v1/me", headers: player }] },
    { name: "me missions", key: served.key, steps: [{ method: "GET", path: () => "/v1/me/missions", headers: player }] },
    { name: "me/config 200", key: served.key, steps: [{ method: "GET", path: () => "/v1/me/config", headers: player }] },
    { name: "progress", key: served.key, steps: [{ method: "GET", path: (i) => `/v1/participants/bench-${i % PLAYERS}/progress` }] },
    { name: "me token", key: served.token, steps: [{ method: "GET", path: () => "/v1/me" }] },
    {
      name: "redemptions",
      key: served.key,
      steps: [
        {
          method: "POST",
          path: () => "/v1/redemptions",
          body: (i) => ({ participant: `bench-${i % PLAYERS}`, reward: REWARD }),
          headers: () => ({ "idempotency-key": `${run}-${keys++}` }),
        },
      ],
    },
  ];
  return all.filter((path) => ONLY.length === 0 || ONLY.some((part) => path.name.includes(part)));
}

async function main() {
  const servers: Served[] = [];
  try {
    for (const root of ROOTS) servers.push(await serve(root));
    const results = new Map<string, number[]>();
    for (let round = 0; round <= PAIRS; round++) {
      // Round 0 warms up (JIT); the order of the trees alternates between rounds.
      const order = round % 2 === 0 ? servers : [...servers].reverse();
      for (const served of order) {
        for (const path of paths(served)) {
          const before = cpuMs(served.child.pid!);
          const measured = await drive({ url: served.url, key: path.key, connections: 32, amount: REQUESTS, steps: path.steps });
          const us = Math.round(((cpuMs(served.child.pid!) - before) * 1000) / REQUESTS);
          if (measured.failed > 0) console.log(`${served.root} ${path.name}: ${measured.failed} failed`);
          if (round === 0) continue;
          const label = `${path.name}\t${served.root}`;
          results.set(label, [...(results.get(label) ?? []), us]);
          console.log(`round ${round} ${label}\t${us} µs\tp99 ${measured.p99} ms`);
        }
      }
    }
    console.log(`\n${KIND}, CPU µs per request (median of ${PAIRS}; each round):`);
    for (const [label, values] of results) console.log(`${label}\t${median(values)}\t(${values.join(", ")})`);
  } finally {
    await Promise.allSettled(servers.map((served) => served.drop()));
  }
}

await main();
