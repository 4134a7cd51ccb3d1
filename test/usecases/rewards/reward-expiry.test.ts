import { afterAll, beforeAll, expect, it } from "vitest";
import { ParticipantReward } from "../../../server/src/db/entities/index.js";
import { ingestEvent } from "../../../server/src/usecases/events/ingest.js";
import { expireRewards } from "../../../server/src/usecases/rewards/reward-expiry.js";
import { listMyRewards } from "../../../server/src/usecases/rewards/index.js";
import { describeEachDatabase } from "../../support/databases.js";
import { eventInput, PUBLIC_URL } from "../fixtures.js";
import { openTestClub, type DatabaseClub } from "../../support/club.js";
import { demoConfig } from "../../support/club-config.js";

const SIGNUP = new Date("2026-11-18T15:00:00Z");
const DAY = 86_400_000;

/** The demo casino whose welcome rule also grants `vip-ticket`, an internal reward that expires a day after it is granted. */
function configWithTicket(): Record<string, unknown> {
  const config = demoConfig() as { rewards: Record<string, unknown>[]; rules: { id: string; effects: Record<string, unknown>[] }[] };
  config.rewards.push({ code: "vip-ticket", title: "Ingresso VIP", type: "internal", expiresInDays: 1 });
  config.rules.find((rule) => rule.id === "signup-bonus")!.effects.push({ type: "grant_reward", reward: "vip-ticket" });
  return config as unknown as Record<string, unknown>;
}

describeEachDatabase("reward expiry", (kind) => {
  let club: DatabaseClub;
  beforeAll(async () => {
    club = await openTestClub(kind, { config: configWithTicket() });
  });
  afterAll(async () => {
    await club?.close();
  });

  it("stores `expired` for open rewards past expiresAt, once, leaving rewards without expiry alone", async () => {
    await ingestEvent(club.db, club.scope, eventInput({ participant: "ana", type: "user.signed_up", id: "ana-signup" }), {
      now: SIGNUP,
      publicUrl: PUBLIC_URL,
    });
    const ticket = await club.db.em().findOneOrFail(ParticipantReward, { ...club.scope, rewardCode: "vip-ticket" });
    expect(ticket).toMatchObject({ status: "granted", expiresAt: new Date(SIGNUP.getTime() + DAY) });

    expect(await expireRewards(club.db, new Date(SIGNUP.getTime() + DAY - 1))).toBe(0);
    expect(await expireRewards(club.db, new Date(SIGNUP.getTime() + DAY))).toBe(1);
    // A second run (another worker, or the next tick) finds nothing left.
    expect(await expireRewards(club.db, new Date(SIGNUP.getTime() + 2 * DAY))).toBe(0);

    const mine = await listMyRewards(club.db, club.scope, "ana", new Date(SIGNUP.getTime() + 2 * DAY));
    expect(mine.data.map((reward) => [reward.reward_code, reward.status])).toEqual([["vip-ticket", "expired"]]);
    const stored = await club.db.em().fork().findOneOrFail(ParticipantReward, { id: ticket.id });
    expect(stored.status).toBe("expired");
  });
});
