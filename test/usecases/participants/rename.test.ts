import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import {
  AffiliateAttribution,
  Badge,
  Balance,
  CheckinClaim,
  CurrencyLot,
  Delivery,
  Event,
  LeaderboardEntry,
  LedgerEntry,
  MissionProgress,
  Notification,
  Participant,
  ParticipantReward,
  Redemption,
  Referral,
  RuleDedupeKey,
  RuleRunDay,
  WheelSpin,
  allEntities,
} from "../../../server/src/db/entities/index.js";
import { newId } from "../../../server/src/db/ids.js";
import type { Database } from "../../../server/src/db/orm.js";
import type { Scope } from "../../../server/src/db/scope.js";
import { MERGE_RULES } from "../../../server/src/usecases/participants/merge.js";
import { renameParticipant } from "../../../server/src/usecases/participants/rename.js";
import { getProfile, upsertParticipant } from "../../../server/src/usecases/participants/participants.js";
import { describeEachDatabase } from "../../support/databases.js";
import { openTestClub } from "../../support/club.js";
import { compactCasino, demoConfig } from "../../support/club-config.js";
import { expectContract } from "../../support/contract.js";

const t0 = new Date("2026-11-21T12:00:00.000Z");
const t1 = new Date("2026-11-21T13:00:00.000Z");

describe("merge rules", () => {
  it("cover every column that points at a participant", () => {
    const covered = new Set(MERGE_RULES.map((rule) => `${rule.entity.meta.className}.${rule.owner}`));
    const participantColumns = allEntities.flatMap((entity) =>
      Object.keys(entity.meta.properties)
        .filter((property) => ["participantId", "referrerId", "referredId"].includes(property))
        .map((property) => `${entity.meta.className}.${property}`),
    );
    expect(participantColumns.length).toBeGreaterThan(10);
    for (const column of participantColumns) expect(covered, column).toContain(column);
  });
});

describeEachDatabase("participant rename", (kind) => {
  let db: Database;
  let close: () => Promise<void>;
  let scope: Scope;
  beforeAll(async () => {
    ({ db, scope, close } = await openTestClub(kind, { config: demoConfig(compactCasino), name: "Cassino do Sol", now: t0 }));
  });
  afterAll(() => close?.());

  let ana: Participant;
  let other: Participant;
  let n = 0;
  /** Fresh external ids per test, so the tests share one database without colliding. */
  const ids = () => ({ from: `ana_${n}`, to: `br:${n}` });

  async function participant(externalId: string, xp: number): Promise<Participant> {
    await upsertParticipant(db, scope, { external_id: externalId, tags: [`tag-${externalId}`] }, t0);
    const em = db.em();
    await em.nativeUpdate(Participant, { ...scope, externalId }, { xp, eventCounts: { "deposit.confirmed": 2 } });
    return em.findOneOrFail(Participant, { ...scope, externalId });
  }

  /** A row in every participant-owned table; `same` decides the identities that collide between the two participants. */
  async function history(p: Participant, opts: { coins: number; gems?: number; badge: string; eventId: string; points: number }) {
    const em = db.em();
    const base = { ...scope, participantId: p.id };
    await em.insert(Balance, { id: newId("bal"), ...base, currency: "coins", amount: opts.coins, updatedAt: t0 });
    if (opts.gems) await em.insert(Balance, { id: newId("bal"), ...base, currency: "gems", amount: opts.gems, updatedAt: t0 });
    await em.insert(LedgerEntry, { id: newId("led"), ...base, unit: "coins", delta: opts.coins, balanceAfter: opts.coins, reason: "rule", createdAt: t0 });
    await em.insert(CurrencyLot, { id: newId("lot"), ...base, currency: "coins", granted: opts.coins, remaining: opts.coins, createdAt: t0 });
    await em.insert(Event, {
      id: newId("evt"),
      ...base,
      externalEventId: opts.eventId,
      idempotencyKey: `${p.id}-${opts.eventId}`,
      type: "deposit.confirmed",
      currency: "BRL",
      occurredAt: t0,
      meta: {},
      status: "processed",
      effects: [],
      effectsCount: 0,
      receivedAt: t0,
    });
    await em.insert(RuleDedupeKey, { ...base, ruleId: "deposito-xp", dedupeKey: opts.eventId, eventId: null, firedAt: t0 });
    await em.insert(RuleRunDay, {
      ...base,
      ruleId: "deposito-xp",
      dayKey: "2026-11-21",
      runs: 1,
      amounts: { xp: opts.points },
      lastRunAt: opts.points > 5 ? t1 : t0,
    });
    await em.insert(MissionProgress, { id: newId("msp"), ...base, missionId: "primeiro-deposito", periodKey: "once", progress: 1, updatedAt: t0 });
    const reward = newId("rwd");
    const delivery = newId("dlv");
    await em.insert(ParticipantReward, {
      id: reward,
      ...base,
      rewardCode: "giros-10",
      type: "client_delivered",
      status: "pending",
      source: "rule:deposito-xp",
      deliveryId: delivery,
      grantedAt: t0,
    });
    await em.insert(Delivery, { id: delivery, ...base, participantRewardId: reward, rewardCode: "giros-10", status: "pending", createdAt: t0 });
    await em.insert(Badge, { id: newId("bdg"), ...base, badgeCode: opts.badge, grantedAt: t0 });
    await em.insert(LeaderboardEntry, { id: newId("lbe"), ...base, campaignId: "semana", points: opts.points, updatedAt: t0 });
    await em.insert(Redemption, { id: newId("red"), ...base, rewardCode: "vip-box", cost: { currency: "coins", amount: 500 }, result: {}, createdAt: t0 });
    await em.insert(Referral, { id: newId("rfl"), ...scope, referrerId: p.id, referredId: newId("par"), code: "ANA2024", status: "pending", createdAt: t0 });
    await em.insert(Referral, { id: newId("rfl"), ...scope, referrerId: newId("par"), referredId: p.id, code: "BETO2024", status: "pending", createdAt: t0 });
    await em.insert(AffiliateAttribution, { id: newId("att"), ...scope, affiliateId: newId("aff"), participantId: p.id, createdAt: t0 });
    await em.insert(Notification, { id: newId("ntf"), ...base, kind: "level_up", title: "Subiu de nível", createdAt: t0 });
    await em.insert(CheckinClaim, { id: newId("chk"), ...base, dayKey: "2026-11-21", periodKey: "2026-11", dayIndex: 20, claimedAt: t0 });
    await em.insert(WheelSpin, { id: newId("spn"), ...base, dayKey: "2026-11-21", sliceId: "a", sliceIndex: 0, probabilityVersion: 1, result: {}, spunAt: t0 });
  }

  /** Every row of every table, for comparing a database before and after. */
  async function everything(): Promise<Record<string, unknown[]>> {
    const em = db.em();
    const dump: Record<string, unknown[]> = {};
    for (const entity of allEntities) {
      // Ordered by the primary key, whatever it is (most tables have `id`; idempotency keys a composite one).
      const orderBy = Object.fromEntries(entity.meta.primaryKeys.map((key) => [key, "asc"]));
      dump[entity.meta.className] = await em.find(entity as typeof Participant, {}, { orderBy });
    }
    return JSON.parse(JSON.stringify(dump));
  }

  beforeEach(async () => {
    n++;
    ana = await participant(ids().from, 232441);
    other = await participant(ids().to, 150);
  });

  it("renames: the participant keeps its id and history, the old id answers 404", async () => {
    const { from, to } = ids();
    await db.em().nativeDelete(Participant, { id: other.id });
    await history(ana, { coins: 1250, badge: "primeiro-deposito", eventId: "e1", points: 10 });
    const report = await renameParticipant(db, scope, from, { new_external_id: to }, t1);
    expectContract("ParticipantRenameReport", report);
    expect(report).toEqual({
      env: "test",
      from,
      to,
      dry_run: false,
      before: { id: ana.id, external_id: from, xp: 232441, level: 1, balances: { coins: 1250 } },
      merged: null,
      after: { id: ana.id, external_id: to, xp: 232441, level: 1, balances: { coins: 1250 } },
      rewritten: { "participants.external_id": 1 },
      moved: {},
    });
    await expect(getProfile(db, scope, from)).rejects.toMatchObject({ status: 404 });
    expect((await getProfile(db, scope, to)).id).toBe(ana.id);
    expect(await db.em().count(Badge, { participantId: ana.id })).toBe(1);
  });

  it("answers 404 for a participant missing in this club, and 422 for the same id", async () => {
    const { from } = ids();
    await expect(renameParticipant(db, scope, "nobody", { new_external_id: "x" })).rejects.toMatchObject({ status: 404, code: "not_found" });
    await expect(renameParticipant(db, { ...scope, env: "live" }, from, { new_external_id: "x" })).rejects.toMatchObject({ status: 404 });
    await expect(renameParticipant(db, scope, from, { new_external_id: from })).rejects.toMatchObject({
      status: 422,
      code: "validation_failed",
      message: "body.new_external_id must differ from the current external_id",
    });
  });

  it("refuses with 409 participant_exists when the new id exists and merge is not true, changing nothing", async () => {
    const { from, to } = ids();
    const before = await everything();
    await expect(renameParticipant(db, scope, from, { new_external_id: to })).rejects.toMatchObject({ status: 409, code: "participant_exists" });
    await expect(renameParticipant(db, scope, from, { new_external_id: to, merge: false })).rejects.toMatchObject({ status: 409 });
    expect(await everything()).toEqual(before);
  });

  it("merges: balances and points added, rows moved, duplicates dropped and counted, the other participant gone", async () => {
    const { from, to } = ids();
    await history(ana, { coins: 1250, badge: "primeiro-deposito", eventId: "e1", points: 10 });
    await history(other, { coins: 100, gems: 7, badge: "primeiro-deposito", eventId: "e1", points: 5 });
    await db.em().insert(Badge, { id: newId("bdg"), ...scope, participantId: other.id, badgeCode: "high-roller", grantedAt: t0 });

    const report = await renameParticipant(db, scope, from, { new_external_id: to, merge: true }, t1);
    expectContract("ParticipantRenameReport", report);
    expect(report.before).toEqual({ id: ana.id, external_id: from, xp: 232441, level: 1, balances: { coins: 1250 } });
    expect(report.merged).toEqual({
      id: other.id,
      external_id: to,
      xp: 150,
      level: 1,
      balances: { coins: 100, gems: 7 },
      duplicates_dropped: {
        events: 1,
        rule_dedupe_keys: 1,
        mission_progress: 1,
        badges: 1,
        referrals: 1,
        affiliate_attributions: 1,
        checkin_claims: 1,
      },
    });
    // Level and tier follow the summed XP through the published curve.
    expect(report.after).toEqual({ id: ana.id, external_id: to, xp: 232591, level: 13, balances: { coins: 1350, gems: 7 } });
    expect(report.moved).toEqual({
      balances: 2,
      ledger_entries: 1,
      currency_lots: 1,
      rule_run_days: 1,
      participant_rewards: 1,
      deliveries: 1,
      badges: 1,
      leaderboard_entries: 1,
      redemptions: 1,
      referrals: 1,
      notifications: 1,
      wheel_spins: 1,
    });
    expect(report.rewritten).toEqual({ "participants.external_id": 1 });

    const em = db.em();
    expect(await em.findOne(Participant, { id: other.id })).toBeNull();
    const survivor = await em.findOneOrFail(Participant, { id: ana.id });
    expect(survivor).toMatchObject({ externalId: to, xp: 232591, level: 13, tierCode: "prata", eventCounts: { "deposit.confirmed": 4 } });
    expect(survivor.tags).toEqual([`tag-${from}`, `tag-${to}`]);
    expect((await em.find(Badge, { participantId: ana.id })).map((b) => b.badgeCode).sort()).toEqual(["high-roller", "primeiro-deposito"]);
    expect((await em.findOneOrFail(LeaderboardEntry, { participantId: ana.id })).points).toBe(15);
    // The rule's day of both adds up: runs and amounts per unit, the later last run.
    const day = await em.findOneOrFail(RuleRunDay, { participantId: ana.id, ruleId: "deposito-xp", dayKey: "2026-11-21" });
    expect({ runs: day.runs, amounts: day.amounts, lastRunAt: day.lastRunAt.toISOString() }).toEqual({
      runs: 2,
      amounts: { xp: 15 },
      lastRunAt: t1.toISOString(),
    });
    expect(await em.count(LedgerEntry, { participantId: ana.id })).toBe(2);
    expect(await em.count(Event, { participantId: ana.id })).toBe(1);
    expect(await em.count(Referral, { referrerId: ana.id })).toBe(2);
    expect(await em.count(Referral, { referredId: ana.id })).toBe(1);
    // Nothing points at the merged participant any more.
    for (const rule of MERGE_RULES) expect(await em.count(rule.entity as any, { [rule.owner]: other.id }), rule.owner).toBe(0);
    expect((await getProfile(db, scope, to)).currencies.map((c) => c.balance)).toEqual([1350, 0]);
  });

  it("a dry run reports exactly what the merge does and leaves every table unchanged", async () => {
    const { from, to } = ids();
    await history(ana, { coins: 1250, badge: "primeiro-deposito", eventId: "e1", points: 10 });
    await history(other, { coins: 100, gems: 7, badge: "primeiro-deposito", eventId: "e2", points: 5 });
    const before = await everything();

    const dry = await renameParticipant(db, scope, from, { new_external_id: to, merge: true, dry_run: true }, t1);
    expect(await everything()).toEqual(before);
    expect(dry.dry_run).toBe(true);
    expect(dry.after).toMatchObject({ external_id: to, balances: { coins: 1350, gems: 7 } });

    const real = await renameParticipant(db, scope, from, { new_external_id: to, merge: true }, t1);
    expect(real).toEqual({ ...dry, dry_run: false });
  });

  it("a dry run of a plain rename changes nothing either", async () => {
    const { from } = ids();
    const before = await everything();
    const dry = await renameParticipant(db, scope, from, { new_external_id: `${from}:novo`, dry_run: true }, t1);
    expect(dry).toMatchObject({ dry_run: true, merged: null, after: { external_id: `${from}:novo` } });
    expect(await everything()).toEqual(before);
  });
});
