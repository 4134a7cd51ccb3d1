import { afterAll, beforeAll, expect, it } from "vitest";
import { publish, saveDraft } from "../../../server/src/usecases/club/config.js";
import { ingestEvent } from "../../../server/src/usecases/events/ingest.js";
import { getProfile } from "../../../server/src/usecases/participants/participants.js";
import { describeEachDatabase } from "../../support/databases.js";
import { eventInput, participantRow, PUBLIC_URL } from "../fixtures.js";
import { openTestClub, type DatabaseClub } from "../../support/club.js";
import { demoConfig } from "../../support/club-config.js";

const WEDNESDAY = new Date("2026-11-18T15:00:00Z");
const later = (seconds: number) => new Date(WEDNESDAY.getTime() + seconds * 1000);

type Config = { progression: { curve: Record<string, unknown>; benefits: Record<string, unknown>[] }; rules: Record<string, unknown>[] };

/** The demo casino, `suporte` (Bronze's and Prata's benefit) under compliance review, and a rule that tags Prata players on a settled bet. */
function config(): Config {
  const config = demoConfig() as unknown as Config;
  config.progression.benefits.find((benefit) => benefit.code === "suporte")!.compliance = "review";
  config.rules.push({
    id: "prata-tag",
    trigger: { event: "bet.settled" },
    conditions: [{ tier_in: ["prata"] }],
    effects: [{ type: "tag_participant", tag: "prata" }],
  });
  return config;
}

describeEachDatabase("profile tier and benefits", (kind) => {
  let club: DatabaseClub;
  beforeAll(async () => {
    club = await openTestClub(kind, { config: config() as unknown as Record<string, unknown> });
  });
  afterAll(async () => {
    await club?.close();
  });

  it("shows the stored tier, the one tier_in sees, after a curve change; review benefits only to server routes", async () => {
    const send = (input: Record<string, unknown>, at: Date) => ingestEvent(club.db, club.scope, eventInput(input), { now: at, publicUrl: PUBLIC_URL });
    // 120000 XP: level 10 on the demo's `media` curve, Prata.
    await send({ participant: "ana", type: "deposit.confirmed", id: "ana-dep", amount: 60000 }, later(0));
    expect((await getProfile(club.db, club.scope, "ana")).tier.code).toBe("prata");

    // A steeper curve: the same XP now computes to a Bronze level, while the stored tier stays Prata (demotion `never`).
    const steeper = config();
    steeper.progression.curve = { ...steeper.progression.curve, preset: "dificil" };
    await saveDraft(club.db, club.scope, steeper, later(10));
    await publish(club.db, club.scope, undefined, later(10));
    const server = await getProfile(club.db, club.scope, "ana");
    expect(server.level).toBeLessThan(10);
    const stored = (await participantRow(club.db, club.scope, "ana")).tierCode;
    expect(stored).toBe("prata");
    expect(server.tier.code).toBe(stored);

    // tier_in tests the same stored tier the profile shows.
    const settled = await send({ participant: "ana", type: "bet.settled", id: "ana-settle", amount: 0 }, later(20));
    const tagged = settled.effects.some((effect) => effect.type === "tagged" && effect.tag === "prata");
    const after = await getProfile(club.db, club.scope, "ana");
    expect(after.tier.code).toBe((await participantRow(club.db, club.scope, "ana")).tierCode);
    expect(after.tier.code).toBe("prata");
    expect(tagged).toBe(true);

    // `suporte` is under review: absent from what the participant sees (/v1/me), listed for server routes.
    expect(after.benefits).toContain("Suporte prioritário");
    expect((await getProfile(club.db, club.scope, "ana", "participant")).benefits).not.toContain("Suporte prioritário");
  });
});
