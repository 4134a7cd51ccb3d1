import { afterAll, beforeAll, it } from "vitest";
import { sleep } from "../jobs/support/wait.js";
import { ok } from "./support/client.js";
import { shiftableClock } from "./support/clock.js";
import { startInProcessStack, type InProcessStack } from "./support/stack.js";
import { Endpoints, noticesOf } from "./support/webhooks.js";

const ALL = ["reward.delivery_requested","reward.granted","reward.delivered","reward.delivery_failed","participant.created","level.up","tier.changed","checkin.completed","mission.completed","wheel.spun","code.redeemed","store.purchased","cashback.credited","referral.qualified","message.requested"];
let stack: InProcessStack;
const clock = shiftableClock();
const endpoints = new Endpoints(clock);
beforeAll(async () => { stack = await startInProcessStack("sqlite+embedded", { clock }); });
afterAll(async () => { await endpoints.stopAll(); await stack?.close(); });

it("explore", async () => {
  const club = await stack.newClub();
  const ep = await endpoints.connect(club, ALL);
  let seen = noticesOf(ep.receiver).length;
  const step = async (name: string, f: () => Promise<unknown>) => {
    const r = await f();
    await sleep(2500);
    const all = noticesOf(ep.receiver);
    console.log("STEP", name, String(JSON.stringify(r)).slice(0, 700));
    for (const n of all.slice(seen)) console.log("   ", n.envelope.type, JSON.stringify(n.envelope.data));
    seen = all.length;
    return r as any;
  };
  const p = "jogador_8412";
  const ev = (body: any) => ok(club.call("POST", "/v1/events", { body: { participant: p, ...body } }));
  await step("signup", () => ev({ type: "user.signed_up", id: "signup-8412" }));
  await step("deposit", () => ev({ type: "deposit.confirmed", id: "dep-1", amount: 500, meta: { method: "pix" } }));
  const slot = { game_id: "vs20olympgate", game_name: "Gates of Olympus", game_provider: "Pragmatic Play", game_type: "video-slots" };
  await step("bets", async () => { for (let i = 0; i < 3; i++) await ev({ type: "bet.placed", id: `bet-${i}`, amount: 200, meta: slot }); });
  await step("settle", async () => { await ev({ type: "bet.settled", id: "set-1", amount: 1500, meta: { ...slot, outcome: "won" } }); await ev({ type: "bet.settled", id: "set-2", amount: 0, meta: { ...slot, outcome: "lost" } }); });
  await step("claim", () => ok(club.call("POST", "/v1/me/missions/apostar-500/claim", { participant: p })));
  await step("big deposit", () => ev({ type: "deposit.confirmed", id: "dep-2", amount: 55000, meta: { method: "pix" } }));
  await step("redeem", () => ok(club.call("POST", "/v1/redemptions", { body: { participant: p, reward: "store-bonus-10" }, headers: { "Idempotency-Key": "resgate-0001" } })));
  await step("checkin", () => ok(club.call("POST", "/v1/me/checkin", { participant: p })));
  await step("wheel", () => ok(club.call("POST", "/v1/me/wheel/spin", { participant: p })));
  const ref = await step("referral state", () => ok(club.call("GET", "/v1/me/referral", { participant: p })));
  await step("register", () => ok(club.call("POST", "/v1/referrals", { body: { referred_external_id: "amigo_9120", code: ref.code } }), 201));
  await step("friend deposit", () => ok(club.call("POST", "/v1/events", { body: { participant: "amigo_9120", type: "deposit.confirmed", id: "dep-amigo", amount: 50 } })));
}, 120_000);
