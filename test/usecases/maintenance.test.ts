import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Balance, CashbackCredit, CurrencyLot, LedgerEntry, Participant, TierReview } from "../../server/src/db/entities/index.js";
import { newId } from "../../server/src/db/ids.js";
import type { Scope } from "../../server/src/db/scope.js";
import { updateCashbackProgram } from "../../server/src/usecases/cashback/cashback.js";
import { creditDueCashbackForAllClubs } from "../../server/src/usecases/cashback/claims.js";
import { ingestEvent } from "../../server/src/usecases/events/ingest.js";
import { expireCurrencyLots } from "../../server/src/usecases/rewards/lot-expiry.js";
import { upsertParticipant } from "../../server/src/usecases/participants/participants.js";
import { reviewTiers } from "../../server/src/usecases/participants/tier-review.js";
import { describeEachDatabase } from "../support/databases.js";
import { balancesOf, eventInput, participantRow, PUBLIC_URL, recordedWebhooks } from "./fixtures.js";
import { openTestClub, type DatabaseClub } from "../support/club.js";
import { demoConfig } from "../support/club-config.js";

const MS = 1;
const DAY = 86_400_000;

/** The demo casino with `progression.demotion` set. */
function configWithDemotion(demotion: "never" | "monthly_review"): Record<string, unknown> {
  const config = demoConfig() as { progression: Record<string, unknown> };
  config.progression.demotion = demotion;
  return config;
}

describeEachDatabase("maintenance jobs", (kind) => {
  let club: DatabaseClub;
  beforeAll(async () => {
    club = await openTestClub(kind);
  });
  afterAll(async () => {
    await club?.close();
  });

  /** A new club with `config` published, created on November 1st 2026. */
  async function newClub(config: Record<string, unknown>): Promise<Scope> {
    const created = await club.newClub({ name: "Cassino Manutenção", config, now: new Date("2026-11-01T12:00:00Z") });
    return { clubId: created.clubId, env: "test" };
  }

  async function join(scope: Scope, externalId: string, at = new Date("2026-11-01T12:00:00Z")): Promise<Participant> {
    await upsertParticipant(club.db, scope, { external_id: externalId }, at);
    return participantRow(club.db, scope, externalId);
  }

  describe("currency lot expiry", () => {
    const expiresAt = new Date("2027-02-01T15:00:00.000Z");

    /** A participant holding `balance` gems, `lots` of them in lots granted at the given times and expiring at `expiresAt` unless told. */
    async function holder(
      externalId: string,
      balance: number,
      lots: { remaining: number; grantedAt: Date; expiresAt?: Date }[],
    ): Promise<{ id: string; lots: string[] }> {
      const participant = await join(club.scope, externalId);
      const em = club.db.em();
      await em.insert(Balance, {
        id: newId("bal"),
        ...club.scope,
        participantId: participant.id,
        currency: "gems",
        amount: balance,
        updatedAt: new Date("2026-11-01T12:00:00Z"),
      });
      const ids = lots.map(() => newId("lot"));
      await em.insertMany(
        CurrencyLot,
        lots.map((lot, index) => ({
          id: ids[index],
          ...club.scope,
          participantId: participant.id,
          currency: "gems",
          granted: lot.remaining + 5,
          remaining: lot.remaining,
          expiresAt: lot.expiresAt ?? expiresAt,
          createdAt: lot.grantedAt,
        })),
      );
      return { id: participant.id, lots: ids };
    }

    const remainingOf = async (lotId: string) => (await club.db.em().findOneOrFail(CurrencyLot, { id: lotId })).remaining;
    const expiryLedger = async (participantId: string) =>
      (await club.db.em().find(LedgerEntry, { participantId, reason: "lot_expired" }, { orderBy: { balanceAfter: "desc" } })).map((row) => [
        row.unit,
        row.delta,
        row.balanceAfter,
      ]);

    it("expires a lot at its expiresAt exactly, not a millisecond before, and only what is left of it", async () => {
      const lia = await holder("lia", 1000, [{ remaining: 300, grantedAt: new Date("2026-11-03T15:00:00Z") }]);
      expect(await expireCurrencyLots(club.db, new Date(expiresAt.getTime() - MS))).toEqual({ participants: 0, lots: 0 });
      expect(await remainingOf(lia.lots[0])).toBe(300);
      expect(await balancesOf(club.db, lia.id)).toEqual({ gems: 1000 });

      expect(await expireCurrencyLots(club.db, expiresAt)).toEqual({ participants: 1, lots: 1 });
      expect(await remainingOf(lia.lots[0])).toBe(0);
      expect(await balancesOf(club.db, lia.id)).toEqual({ gems: 700 });
      expect(await expiryLedger(lia.id)).toEqual([["gems", -300, 700]]);
      expect(await expireCurrencyLots(club.db, new Date(expiresAt.getTime() + DAY))).toEqual({ participants: 0, lots: 0 });
    });

    it("expires the oldest lot first and never takes the balance below zero", async () => {
      const rui = await holder("rui", 400, [
        { remaining: 200, grantedAt: new Date("2026-11-10T15:00:00Z") },
        { remaining: 300, grantedAt: new Date("2026-11-02T15:00:00Z") },
        { remaining: 50, grantedAt: new Date("2026-11-20T15:00:00Z"), expiresAt: new Date(expiresAt.getTime() + DAY) },
      ]);
      expect(await expireCurrencyLots(club.db, expiresAt)).toEqual({ participants: 1, lots: 2 });
      // The older lot took its 300 in full; the newer one found 100 left.
      expect(await expiryLedger(rui.id)).toEqual([
        ["gems", -300, 100],
        ["gems", -100, 0],
      ]);
      expect(await balancesOf(club.db, rui.id)).toEqual({ gems: 0 });
      expect(await Promise.all(rui.lots.map(remainingOf))).toEqual([0, 0, 50]);
    });

    it("expires each lot once when two workers run at the same time", async () => {
      const holders = await Promise.all(
        ["bea", "caio", "duda"].map((name, index) =>
          holder(name, 500, [
            { remaining: 100 + index, grantedAt: new Date("2026-11-04T15:00:00Z") },
            { remaining: 10, grantedAt: new Date("2026-11-05T15:00:00Z") },
          ]),
        ),
      );
      const runs = await Promise.all([expireCurrencyLots(club.db, expiresAt, 2), expireCurrencyLots(club.db, expiresAt, 2)]);
      expect(runs[0].lots + runs[1].lots).toBe(6);
      for (const [index, { id }] of holders.entries()) {
        expect(await balancesOf(club.db, id)).toEqual({ gems: 500 - 110 - index });
        expect(await expiryLedger(id)).toEqual([
          ["gems", -100 - index, 400 - index],
          ["gems", -10, 390 - index],
        ]);
      }
    });
  });

  describe("monthly tier review", () => {
    /** Sets the stored progression state of a participant. */
    async function setState(
      participant: Participant,
      state: Partial<Pick<Participant, "level" | "tierCode" | "peakMonth" | "peakLevel" | "priorMonthPeakLevel">>,
    ): Promise<void> {
      await club.db.em().nativeUpdate(Participant, { id: participant.id }, state);
    }
    const tierOf = async (scope: Scope, externalId: string) => (await participantRow(club.db, scope, externalId)).tierCode;
    const tierChanges = async (scope: Scope) =>
      (await recordedWebhooks(club.db, scope)).filter((hook) => hook.type === "tier.changed").map((hook) => hook.data);

    it("reviews at the start of the club month in São Paulo, from the highest level since the previous month began", async () => {
      const scope = await newClub(configWithDemotion("monthly_review"));
      // Ouro until a debit in October left level 5; nothing since.
      await setState(await join(scope, "caiu"), { level: 5, tierCode: "ouro", peakMonth: "2026-10", peakLevel: 30, priorMonthPeakLevel: 30 });
      // Level 30 on some day of November, 5 now.
      await setState(await join(scope, "em-novembro"), { level: 5, tierCode: "ouro", peakMonth: "2026-11", peakLevel: 30, priorMonthPeakLevel: 30 });
      // Level 30 in November, and an event at 00:10 on December 1st before the review.
      await setState(await join(scope, "madrugada"), { level: 5, tierCode: "ouro", peakMonth: "2026-12", peakLevel: 5, priorMonthPeakLevel: 30 });
      await setState(await join(scope, "prata"), { level: 12, tierCode: "prata" });
      const novo = await join(scope, "novo");

      // First seen under monthly review in November: the first review is at the start of December.
      expect(await reviewTiers(club.db, new Date("2026-11-10T12:00:00Z"))).toMatchObject({ reviews: 0, changed: 0 });
      expect(await club.db.em().find(TierReview, scope)).toEqual([expect.objectContaining({ monthKey: "2026-11", reviewed: false })]);
      // 23:59:59 on November 30th in São Paulo (UTC−3): still November.
      expect(await reviewTiers(club.db, new Date("2026-12-01T02:59:59Z"))).toMatchObject({ reviews: 0, changed: 0 });
      expect(await tierOf(scope, "caiu")).toBe("ouro");

      // One review per environment: the club has a published configuration in `test` and in `live`.
      expect(await reviewTiers(club.db, new Date("2026-12-01T03:00:00Z"))).toMatchObject({ reviews: 2, changed: 1 });
      expect(await tierOf(scope, "caiu")).toBe("bronze");
      expect(await tierOf(scope, "em-novembro")).toBe("ouro");
      expect(await tierOf(scope, "madrugada")).toBe("ouro");
      expect(await tierOf(scope, "prata")).toBe("prata");
      expect(await tierOf(scope, "novo")).toBe(novo.tierCode);
      expect(await tierChanges(scope)).toEqual([
        {
          participant: { id: expect.stringMatching(/^par_/), external_id: "caiu" },
          from: { code: "ouro", name: "Ouro" },
          to: { code: "bronze", name: "Bronze" },
        },
      ]);
      expect(await club.db.em().findOneOrFail(TierReview, { ...scope, monthKey: "2026-12" })).toMatchObject({
        reviewed: true,
        finishedAt: new Date("2026-12-01T03:00:00Z"),
      });

      // Once per month: the hourly runs after it change nothing.
      expect(await reviewTiers(club.db, new Date("2026-12-01T04:00:00Z"))).toMatchObject({ reviews: 0, changed: 0 });
      // January reviews December: "em-novembro" spent December at level 5; "madrugada" too.
      expect(await reviewTiers(club.db, new Date("2027-01-01T03:00:00Z"))).toMatchObject({ reviews: 2, changed: 2 });
      expect([await tierOf(scope, "em-novembro"), await tierOf(scope, "madrugada")]).toEqual(["bronze", "bronze"]);
    });

    it("reads the peak that events record when they change the level", async () => {
      const scope = await newClub(configWithDemotion("monthly_review"));
      const rico = await join(scope, "rico");
      await reviewTiers(club.db, new Date("2026-11-02T12:00:00Z"));
      // A deposit's XP lifts rico's level on November 20th.
      await ingestEvent(club.db, scope, eventInput({ participant: "rico", type: "deposit.confirmed", id: "dep-rico", amount: 5000 }), {
        now: new Date("2026-11-20T15:00:00Z"),
        publicUrl: PUBLIC_URL,
      });
      const lifted = await participantRow(club.db, scope, "rico");
      expect(lifted.level).toBeGreaterThan(rico.level);
      expect(lifted).toMatchObject({ peakMonth: "2026-11", peakLevel: lifted.level, priorMonthPeakLevel: rico.level });
      // A tier above what the levels reached give (as after the tier ranges were raised): the review lowers it to theirs.
      expect(lifted.tierCode).not.toBe("diamante");
      await setState(lifted, { tierCode: "diamante" });
      await reviewTiers(club.db, new Date("2026-12-01T03:00:00Z"));
      expect(await tierOf(scope, "rico")).toBe(lifted.tierCode);
    });

    it("lowers a tier once, with one webhook, when two workers review the same month at once", async () => {
      const scope = await newClub(configWithDemotion("monthly_review"));
      await setState(await join(scope, "dois"), { level: 5, tierCode: "diamante" });
      await reviewTiers(club.db, new Date("2026-11-15T12:00:00Z"));
      const runs = await Promise.all([reviewTiers(club.db, new Date("2026-12-01T03:00:00Z")), reviewTiers(club.db, new Date("2026-12-01T03:00:00Z"))]);
      // Each environment's month reviewed by one of the two.
      expect(runs[0].reviews + runs[1].reviews).toBe(2);
      expect(await tierOf(scope, "dois")).toBe("bronze");
      expect(await tierChanges(scope)).toHaveLength(1);
    });

    it("takes over a review left unfinished a full hour after it was claimed", async () => {
      const scope = await newClub(configWithDemotion("monthly_review"));
      await setState(await join(scope, "orfao"), { level: 5, tierCode: "ouro" });
      const claimedAt = new Date("2026-12-01T03:00:00Z");
      await club.db.em().insertMany(TierReview, [
        {
          id: newId("trv"),
          ...scope,
          monthKey: "2026-11",
          reviewed: false,
          startedAt: new Date("2026-11-15T12:00:00Z"),
          finishedAt: new Date("2026-11-15T12:00:00Z"),
        },
        { id: newId("trv"), ...scope, monthKey: "2026-12", reviewed: true, startedAt: claimedAt, finishedAt: null },
      ]);
      expect(await reviewTiers(club.db, new Date(claimedAt.getTime() + 3_600_000 - MS))).toMatchObject({ reviews: 0 });
      expect(await tierOf(scope, "orfao")).toBe("ouro");
      expect(await reviewTiers(club.db, new Date(claimedAt.getTime() + 3_600_000))).toMatchObject({ reviews: 1, changed: 1 });
      expect(await tierOf(scope, "orfao")).toBe("bronze");
    });

    it("never lowers a tier under `demotion: never`", async () => {
      const scope = await newClub(configWithDemotion("never"));
      await setState(await join(scope, "fiel"), { level: 5, tierCode: "ouro", peakMonth: "2026-09", peakLevel: 30, priorMonthPeakLevel: 30 });
      for (const now of ["2026-11-10T12:00:00Z", "2026-12-01T03:00:00Z", "2027-01-01T03:00:00Z", "2027-02-01T03:00:00Z"])
        await reviewTiers(club.db, new Date(now));
      expect(await tierOf(scope, "fiel")).toBe("ouro");
      expect(await club.db.em().count(TierReview, scope)).toBe(0);
      expect(await tierChanges(scope)).toEqual([]);
    });
  });

  describe("automatic cashback", () => {
    /** Noon in São Paulo (UTC−3) of `key`. */
    const noon = (key: string) => new Date(`${key}T15:00:00Z`);
    let bets = 0;

    async function bet(scope: Scope, participant: string, at: Date, staked: string): Promise<void> {
      const id = `maint-bet-${++bets}`;
      await ingestEvent(club.db, scope, eventInput({ participant, type: "bet.placed", id, amount: staked, meta: { game_type: "video-slots" } }), {
        now: at,
        publicUrl: PUBLIC_URL,
      });
    }

    async function cashbackClub(mode: "auto" | "claim", enabled = true): Promise<Scope> {
      const scope = await newClub(demoConfig());
      await updateCashbackProgram(club.db, scope, { enabled, mode, hour: 10, claim_days: 7, min_loss_minor: 0, min_pct: 10, max_pct: 10, tiers: [] });
      await join(scope, "joana");
      await bet(scope, "joana", noon("2026-11-14"), "100");
      return scope;
    }

    it("pays every club in auto mode, each day once, even with two runs at the same time", async () => {
      const auto = [await cashbackClub("auto"), await cashbackClub("auto")];
      const claim = await cashbackClub("claim");
      const off = await cashbackClub("auto", false);
      // 10:00 in São Paulo on the 15th: the 14th is due.
      const at = new Date("2026-11-15T13:00:00Z");
      const runs = await Promise.all([
        creditDueCashbackForAllClubs(club.db, { now: at, publicUrl: PUBLIC_URL }),
        creditDueCashbackForAllClubs(club.db, { now: at, publicUrl: PUBLIC_URL }),
      ]);
      expect(runs[0].payments + runs[1].payments).toBe(2);
      expect(runs[0].amount + runs[1].amount).toBe(2 * 1000);
      for (const scope of auto) {
        expect(await club.db.em().find(CashbackCredit, scope)).toEqual([
          expect.objectContaining({ dayKey: "2026-11-14", loss: 10000, pct: 10, amount: 1000, paidAt: at }),
        ]);
      }
      for (const scope of [claim, off]) expect(await club.db.em().count(CashbackCredit, scope)).toBe(0);
      expect(await creditDueCashbackForAllClubs(club.db, { now: new Date("2026-11-15T14:00:00Z"), publicUrl: PUBLIC_URL })).toEqual({ payments: 0, amount: 0 });
    });
  });
});
