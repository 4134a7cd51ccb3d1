import { afterAll, beforeAll, expect, it, vi } from "vitest";
import { Balance, OutboxMessage, Participant } from "../../../server/src/db/entities/index.js";
import { newId } from "../../../server/src/db/ids.js";
import type { Database } from "../../../server/src/db/orm.js";
import type { Scope } from "../../../server/src/db/scope.js";
import { getPublishedConfig } from "../../../server/src/usecases/club/config.js";
import { ensureParticipant, getProfile, getProgress, getProgressBatch, upsertParticipant } from "../../../server/src/usecases/participants/participants.js";
import { describeEachDatabase } from "../../support/databases.js";
import { openTestClub, type DatabaseClub } from "../../support/club.js";
import { compactCasino, demoConfig } from "../../support/club-config.js";
import { expectContract } from "../../support/contract.js";

const t0 = new Date("2026-11-21T12:00:00.000Z");
const t1 = new Date("2026-11-21T13:00:00.000Z");

describeEachDatabase("participants", (kind) => {
  let db: Database;
  let close: () => Promise<void>;
  let scope: Scope;
  let newClub: DatabaseClub["newClub"];
  beforeAll(async () => {
    ({ db, scope, newClub, close } = await openTestClub(kind, { config: demoConfig(compactCasino), name: "Cassino do Sol", now: t0 }));
  });
  afterAll(() => close?.());

  /** Sets a participant's XP and balances directly, as the event engine's writes would. */
  /** Sets XP and the tier the engine would have stored with it (the profile shows the stored tier), and balances. */
  async function give(externalId: string, xp: number, balances: Record<string, number>, tierCode: string) {
    const em = db.em();
    const participant = await em.findOneOrFail(Participant, { ...scope, externalId });
    await em.nativeUpdate(Participant, { id: participant.id }, { xp, tierCode, updatedAt: t1 });
    for (const [currency, amount] of Object.entries(balances)) {
      await em.insert(Balance, { id: newId("bal"), ...scope, participantId: participant.id, currency, amount, updatedAt: t1 });
    }
  }

  it("creates a participant on first upsert: level 1, the first tier, every currency at 0", async () => {
    const profile = await upsertParticipant(db, scope, { external_id: "user_8412", display_name: "Ana S.", tags: ["vip-sp"] }, t0);
    expect(profile).toEqual({
      id: expect.stringMatching(/^par_/),
      external_id: "user_8412",
      display_name: "Ana S.",
      avatar_url: null,
      xp: 0,
      level: 1,
      max_level: 60,
      level_start_xp: 0,
      next_level_xp: 1000,
      remaining_xp: 1000,
      percent: 0,
      tier: { code: "bronze", name: "Bronze", color: "#CD7F32", badge: null, vip: false },
      next_tier: { code: "prata", name: "Prata", starts_at_level: 10 },
      benefits: ["Suporte prioritário"],
      currencies: [
        { code: "coins", name: "Moedas", icon: "coin", balance: 0 },
        { code: "cashback", name: "Cashback", icon: "wallet", balance: 0 },
      ],
      flags: {},
    });
    expectContract("ParticipantProfile", profile);
    const stored = await db.em().findOneOrFail(Participant, { ...scope, externalId: "user_8412" });
    expect(stored).toMatchObject({ level: 1, tierCode: "bronze", tags: ["vip-sp"], createdAt: t0 });
  });

  it("announces a new participant once, in the outbox, with the webhook envelope", async () => {
    const messages = await db.em().find(OutboxMessage, { ...scope, kind: "webhook" });
    const created = messages.filter((m) => m.payload.type === "participant.created");
    expect(created).toHaveLength(1);
    expect(created[0].payload).toEqual({
      id: expect.stringMatching(/^evt_/),
      type: "participant.created",
      created_at: t0.toISOString(),
      club_id: scope.clubId,
      env: "test",
      data: { participant: { id: expect.stringMatching(/^par_/), external_id: "user_8412" }, display_name: "Ana S." },
    });
  });

  it("updates only the fields sent: omitted keeps, null clears, tags replace", async () => {
    await upsertParticipant(db, scope, { external_id: "user_8412", email: "ana@example.com.br", phone: "+5511987654321" }, t1);
    let stored = await db.em().findOneOrFail(Participant, { ...scope, externalId: "user_8412" });
    expect(stored).toMatchObject({ displayName: "Ana S.", email: "ana@example.com.br", phone: "+5511987654321", tags: ["vip-sp"], updatedAt: t1 });

    const profile = await upsertParticipant(db, scope, { external_id: "user_8412", display_name: null, tags: ["slots", "crash"] }, t1);
    expect(profile.display_name).toBeNull();
    stored = await db.em().findOneOrFail(Participant, { ...scope, externalId: "user_8412" });
    expect(stored).toMatchObject({ displayName: null, email: "ana@example.com.br", tags: ["slots", "crash"] });
    expect(await db.em().count(OutboxMessage, scope)).toBe(1);
  });

  it("computes level, tier, next tier, benefits and balances from XP and balance rows", async () => {
    await upsertParticipant(db, scope, { external_id: "user_13" }, t0);
    await give("user_13", 232441, { cashback: 1575, coins: 1250 }, "prata");
    const profile = await getProfile(db, scope, "user_13");
    expectContract("ParticipantProfile", profile);
    expect(profile).toMatchObject({
      xp: 232441,
      level: 13,
      level_start_xp: 220723,
      next_level_xp: 267595,
      remaining_xp: 35154,
      percent: 25,
      tier: { code: "prata", name: "Prata", color: "#C0C0C0", badge: null, vip: false },
      next_tier: { code: "ouro", name: "Ouro", starts_at_level: 30 },
      benefits: ["Suporte prioritário", "5% de cashback semanal"],
      currencies: [
        { code: "coins", name: "Moedas", icon: "coin", balance: 1250 },
        { code: "cashback", name: "Cashback", icon: "wallet", balance: 15.75 },
      ],
    });
  });

  it("shows the last level and the top tier without a next one", async () => {
    await upsertParticipant(db, scope, { external_id: "user_top" }, t0);
    await give("user_top", 50_000_000, {}, "ouro");
    const profile = await getProfile(db, scope, "user_top");
    expect(profile).toMatchObject({ level: 60, max_level: 60, next_level_xp: null, remaining_xp: 0, percent: 100, next_tier: null });
    expect(profile.tier).toEqual({ code: "ouro", name: "Ouro", color: "#FFD700", badge: "https://cdn.example.com/ouro.png", vip: true });
    const progress = await getProgress(db, scope, "user_top");
    expectContract("ParticipantProgress", progress);
    expectContract("ParticipantProfile", profile);
    expect(progress.next_level).toBeNull();
    expect(progress.level).toEqual({ number: 60, name: "Nível 60", badge_url: "https://cdn.example.com/ouro.png", color: "#FFD700" });
    expect(progress.xp).toEqual({
      current: 50_000_000 - progress.levels.slice(0, 59).reduce((sum, l) => sum + l.xp_required!, 0),
      required: 0,
      total: 50_000_000,
      progress: 1,
    });
  });

  it("answers the progress resource with the whole level table", async () => {
    const progress = await getProgress(db, scope, "user_13");
    expectContract("ParticipantProgress", progress);
    expect(progress.participant).toEqual({ external_id: "user_13", display_name: null, avatar_url: null });
    expect(progress.level).toEqual({ number: 13, name: "Nível 13", badge_url: null, color: "#C0C0C0" });
    expect(progress.xp).toEqual({ current: 11718, required: 46872, total: 232441, progress: 11718 / 46872 });
    expect(progress.next_level).toEqual({ number: 14, name: "Nível 14", badge_url: null });
    expect(progress.levels).toHaveLength(60);
    expect(progress.levels[0]).toEqual({ number: 1, name: "Nível 1", xp_required: 1000, badge_url: null, color: "#CD7F32" });
    expect(progress.levels[12]).toMatchObject({ number: 13, xp_required: 46872 });
    expect(progress.levels[59]).toEqual({ number: 60, name: "Nível 60", xp_required: null, badge_url: "https://cdn.example.com/ouro.png", color: "#FFD700" });
    expect(progress.currencies.map((c) => c.balance)).toEqual([1250, 15.75]);
    expect(progress.updated_at).toBe(t1.toISOString());
  });

  it("answers 404 for an unknown participant, and for one of another club or environment", async () => {
    await expect(getProfile(db, scope, "nobody")).rejects.toMatchObject({ status: 404, code: "not_found", message: 'Participant "nobody" was not found.' });
    const other = await newClub({ config: demoConfig(compactCasino), name: "Cassino do Sol", now: t0 });
    await expect(getProfile(db, other.scope, "user_8412")).rejects.toMatchObject({ status: 404 });
    await expect(getProgress(db, { ...scope, env: "live" }, "user_8412")).rejects.toMatchObject({ status: 404 });
  });

  it("answers batch progress in the requested order, leaving out unknown ids", async () => {
    const batch = await getProgressBatch(db, scope, ["user_top", "nobody", "user_8412", "user_13"]);
    expectContract("ParticipantProgressBatch", batch);
    const { items } = batch;
    expect(items.map((item) => item.external_id)).toEqual(["user_top", "user_8412", "user_13"]);
    expect(items[2]).toEqual({
      external_id: "user_13",
      level: { number: 13, name: "Nível 13", badge_url: null, color: "#C0C0C0" },
      xp: { current: 11718, required: 46872, total: 232441, progress: 11718 / 46872 },
    });
    expect((await getProgressBatch(db, { ...scope, env: "live" }, ["user_13"])).items).toEqual([]);
  });

  it("reads a batch with the same number of queries for 1 id as for 200", async () => {
    const ids = Array.from({ length: 200 }, (_, i) => `batch_${i}`);
    for (const id of ids.slice(0, 20)) await upsertParticipant(db, scope, { external_id: id }, t0);
    await getPublishedConfig(db, scope); // the configuration is cached after the first read
    const execute = vi.spyOn(db.orm.em.getConnection(), "execute");
    try {
      await getProgressBatch(db, scope, ids.slice(0, 1));
      const forOne = execute.mock.calls.length;
      execute.mockClear();
      const { items } = await getProgressBatch(db, scope, ids);
      expect(items).toHaveLength(20);
      expect(execute.mock.calls.length).toBe(forOne);
    } finally {
      execute.mockRestore();
    }
  });

  it("ensureParticipant creates a participant once even when called concurrently", async () => {
    const results = await Promise.all(Array.from({ length: 10 }, () => ensureParticipant(db, scope, "user_race", { now: t0 })));
    expect(new Set(results.map((p) => p.id)).size).toBe(1);
    expect(await db.em().count(Participant, { ...scope, externalId: "user_race" })).toBe(1);
    const announced = (await db.em().find(OutboxMessage, scope)).filter((m) => (m.payload.data as any).participant.external_id === "user_race");
    expect(announced).toHaveLength(1);
    expect(announced[0].payload.data).toMatchObject({ display_name: null });
  });

  it("ensureParticipant joins the caller's transaction: a rollback leaves no participant and no announcement", async () => {
    const failing = db.em().transactional(async (em) => {
      await ensureParticipant(db, scope, "user_rolled_back", { em, now: t0 });
      throw new Error("the caller failed later");
    });
    await expect(failing).rejects.toThrow("the caller failed later");
    expect(await db.em().count(Participant, { ...scope, externalId: "user_rolled_back" })).toBe(0);
    expect((await db.em().find(OutboxMessage, scope)).filter((m) => (m.payload.data as any).participant.external_id === "user_rolled_back")).toEqual([]);
  });
});
