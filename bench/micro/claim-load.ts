/**
 * Participant claims against `clube serve` from this separate process, for
 * before/after comparisons of one path (issue 32): `POST /v1/me/checkin`
 * (each player once) and `POST /v1/me/wheel/spin` (a wheel of many spins a
 * day), headless mode, on a fresh database with the demo casino club and no
 * webhook endpoint. Prints the rate and the serve process's CPU per answered
 * request. Bounded: CLAIM_PLAYERS check-ins, CLAIM_SPINS spins, c=CLAIM_CONNECTIONS.
 *
 *   BENCH_DATABASES=postgresql npx tsx bench/micro/claim-load.ts
 */
import { processEnvFor, startServe } from "../../test/async/support/processes.js";
import { createTestDatabase, type DatabaseKind } from "../../test/support/databases.js";
import { drive, perSecond } from "../load.js";
import { cpuMs } from "../rss.js";

const players = Number(process.env.CLAIM_PLAYERS ?? 1500);
const spins = Number(process.env.CLAIM_SPINS ?? 1500);
const connections = Number(process.env.CLAIM_CONNECTIONS ?? 32);

async function call(url: string, key: string, method: string, path: string, body?: unknown): Promise<any> {
  const headers: Record<string, string> = { authorization: `Bearer ${key}`, "content-type": "application/json" };
  const response = await fetch(`${url}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await response.text();
  if (response.status >= 300) throw new Error(`${method} ${path} answered ${response.status}: ${text.slice(0, 300)}`);
  return text ? JSON.parse(text) : undefined;
}

async function run(kind: DatabaseKind): Promise<void> {
  const database = await createTestDatabase(kind);
  const unlimited = "100000000/10";
  const env = {
    ...(await processEnvFor({ kind: kind === "sqlite" ? "sqlite+embedded" : "postgresql+rabbitmq", database, vhost: undefined, release: async () => {} })),
    CLUBE_RATE_LIMIT_KEY: unlimited,
    CLUBE_RATE_LIMIT_PARTICIPANT: unlimited,
  };
  const { process: serve, club } = await startServe(env);
  try {
    const key = club.keys.test;
    const url = env.CLUBE_PUBLIC_URL;
    const { config } = await call(url, key, "GET", "/v1/config");
    config.wheel = { ...(config.wheel ?? {}), enabled: true, spinsPerDay: 50 };
    if (config.checkin) config.checkin = { ...config.checkin, enabled: true, requireEvent: null };
    const draft = await call(url, key, "PUT", "/v1/config/draft", config);
    await call(url, key, "POST", "/v1/config/publish", { version: draft.version });
    const events = Array.from({ length: players }, (_, i) => ({ participant: `claim-${i}`, type: "user.signed_up", id: `signup-${i}` }));
    for (let at = 0; at < events.length; at += 500) await call(url, key, "POST", "/v1/events/batch", { events: events.slice(at, at + 500) });

    const measure = async (what: string, amount: number, path: string, player: (i: number) => string) => {
      const before = cpuMs(serve.pid);
      const m = await drive({
        url,
        key,
        connections,
        amount,
        steps: [{ method: "POST", path: () => path, body: () => ({}), headers: (i) => ({ "x-participant": player(i) }) }],
      });
      const cpu = cpuMs(serve.pid) - before;
      console.log(
        `${kind} ${what}: ${m.ok} ok, ${m.failed} failed, ${perSecond(m)}/s, p50 ${m.p50} ms, p99 ${m.p99} ms, clube CPU ${Math.round((cpu * 1000) / Math.max(1, m.ok))} µs per request`,
      );
    };
    // Warm-up on players the measured load does not use.
    await measure("spins (warm-up)", 200, "/v1/me/wheel/spin", (i) => `claim-${i % 50}`);
    await measure("check-ins", players, "/v1/me/checkin", (i) => `claim-${i}`);
    await measure("spins", spins, "/v1/me/wheel/spin", (i) => `claim-${i % players}`);
  } finally {
    await serve.stop();
  }
}

for (const kind of (process.env.BENCH_DATABASES ?? "postgresql,sqlite").split(",") as DatabaseKind[]) await run(kind);
