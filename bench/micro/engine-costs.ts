/**
 * Micro-benchmark of the engine's per-event CPU (evaluate over the demo
 * casino: bets, settlements, deposits) and of id minting. Not a test: run
 * `npx tsx bench/micro/engine-costs.ts [root]`, where `root` is the checkout
 * whose server/src to load (default this one), to compare two trees on one
 * machine. Prints µs per call.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";

const root = resolve(process.argv[2] ?? new URL("../../", import.meta.url).pathname);
const load = (path: string) => import(pathToFileURL(resolve(root, path)).href);

const { evaluate } = await load("server/src/engine/evaluate.ts");
const { validateClubConfig } = await load("server/src/usecases/club/config.ts");
const { newId } = await load("server/src/db/ids.ts");
const config = validateClubConfig(JSON.parse(readFileSync(resolve(root, "server/src/demo/casino.json"), "utf8")));
const timeZone: string = config.checkin?.timezone ?? "America/Sao_Paulo";

const state = () => ({
  xp: 0,
  level: 1,
  tierCode: config.progression.tiers[0].code,
  tags: [],
  balances: {},
  lots: [],
  badges: [],
  eventCountsBefore: {},
  ruleRuns: {},
  missions: {},
  peakLevel: null,
});
const meta = { game_id: "gates-of-olympus", game_type: "video-slots", game_provider: "pragmatic" };
const events = [
  { type: "bet.placed", amount: 50, currency: "BRL", meta },
  { type: "bet.settled", amount: 80, currency: "BRL", meta },
  { type: "deposit.confirmed", amount: 200, currency: "BRL", meta: {} },
];

function perCall(label: string, calls: number, run: (i: number) => void): void {
  for (let i = 0; i < Math.min(calls, 2000); i++) run(i); // warm up
  const start = process.hrtime.bigint();
  for (let i = 0; i < calls; i++) run(i);
  const micros = Number(process.hrtime.bigint() - start) / 1000 / calls;
  console.log(`${label.padEnd(34)} ${micros.toFixed(2)} µs/call`);
}

const base = Date.parse("2026-11-21T15:00:00.000Z");
perCall("engine evaluate (bet/settle/deposit)", 20_000, (i) => {
  // A new instant every 50 calls: the clock moves like a real stream of events.
  const now = new Date(base + Math.floor(i / 50) * 1000);
  const event = { ...events[i % 3], id: `e-${i}`, occurred_at: now.toISOString() };
  evaluate({ config, state: state(), event, now, timeZone });
});
perCall("newId", 200_000, () => newId("evt"));
