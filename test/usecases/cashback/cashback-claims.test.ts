import { afterAll, beforeAll, expect, it } from "vitest";
import { schemaValidators } from "../../../generated/validators.js";
import { CashbackCredit, CashbackProgram as CashbackProgramRow, OutboxMessage, ParticipantReward } from "../../../server/src/db/entities/index.js";
import type { Scope } from "../../../server/src/db/scope.js";
import { updateCashbackProgram } from "../../../server/src/usecases/cashback/cashback.js";
import { claimCashback, creditDueCashback, getCashbackState } from "../../../server/src/usecases/cashback/claims.js";
import { ApiError } from "../../../server/src/usecases/shared/errors.js";
import { ingestEvent } from "../../../server/src/usecases/events/ingest.js";
import { upsertParticipant } from "../../../server/src/usecases/participants/participants.js";
import { describeEachDatabase } from "../../support/databases.js";
import { eventInput, PUBLIC_URL } from "../fixtures.js";
import { openTestClub, type DatabaseClub } from "../../support/club.js";
import { demoConfig } from "../../support/club-config.js";
import { expectResponse } from "../../support/contract.js";
import { subscribeToEverything } from "../../support/endpoints.js";

/** Local noon in São Paulo (UTC−3) of `key`. */
const noon = (key: string) => new Date(`${key}T15:00:00Z`);

type ProgramChanges = Parameters<typeof updateCashbackProgram>[2];

/** Bronze 5% from R$ 50, Prata 10% from R$ 500, Ouro 15% from R$ 2 000; claimable for 7 days; paid at 10:00. */
const PROGRAM: ProgramChanges = {
  enabled: true,
  mode: "claim",
  hour: 10,
  claim_days: 7,
  min_loss_minor: 5000,
  min_pct: 5,
  max_pct: 15,
  tiers: [
    { name: "Bronze", min_loss_minor: 5000, pct: 5 },
    { name: "Prata", min_loss_minor: 50000, pct: 10 },
    { name: "Ouro", min_loss_minor: 200000, pct: 15 },
  ],
};

describeEachDatabase("cashback use cases", (kind) => {
  let club: DatabaseClub;
  beforeAll(async () => {
    club = await openTestClub(kind);
  });
  afterAll(async () => {
    await club?.close();
  });

  /** A demo casino club of its own (the `auto` run pays a whole club) with the program `patch`. */
  async function cashbackClub(patch: ProgramChanges = {}): Promise<Scope> {
    const created = await club.newClub({ name: "Cassino Cashback", config: demoConfig(), now: new Date("2026-11-01T12:00:00Z") });
    const scope: Scope = { clubId: created.clubId, env: "test" };
    await updateCashbackProgram(club.db, scope, { ...PROGRAM, ...patch });
    // The tests read the webhooks from the outbox: something has to take them.
    await subscribeToEverything(club.db, scope);
    return scope;
  }

  it("applies two first-ever settings updates sent at once, neither failing", async () => {
    const { scope } = await club.newClub({ name: "Cassino Cashback Simultâneo", config: demoConfig() });
    const [first, second] = await Promise.all([
      updateCashbackProgram(club.db, scope, { enabled: true }),
      updateCashbackProgram(club.db, scope, { enabled: true, min_pct: 4 }),
    ]);
    expect(first.enabled && second.enabled).toBe(true);
    const stored = await club.db.em().find(CashbackProgramRow, scope);
    expect(stored).toHaveLength(1);
  });

  async function join(scope: Scope, externalId: string, at = new Date("2026-11-01T12:00:00Z")): Promise<void> {
    await upsertParticipant(club.db, scope, { external_id: externalId }, at);
  }

  let betIds = 0;
  /** A bet of `staked` reais received at `at`, settled paying `received` reais. */
  async function bet(scope: Scope, participant: string, at: Date, staked: string, received = "0"): Promise<void> {
    const id = `bet-${++betIds}`;
    await ingestEvent(club.db, scope, eventInput({ participant, type: "bet.placed", id, amount: staked, meta: { game_type: "video-slots" } }), {
      now: at,
      publicUrl: PUBLIC_URL,
    });
    await ingestEvent(
      club.db,
      scope,
      eventInput({ participant, type: "bet.settled", id: `${id}-settle`, amount: received, meta: { game_type: "video-slots" } }),
      {
        now: at,
        publicUrl: PUBLIC_URL,
      },
    );
  }

  async function webhooks(scope: Scope, type: string): Promise<Record<string, unknown>[]> {
    const rows = await club.db.em().find(OutboxMessage, { clubId: scope.clubId, env: scope.env }, { orderBy: { createdAt: "asc" } });
    return rows
      .map((row) => row.payload)
      .filter((payload) => payload.type === type)
      .map((payload) => payload.data as Record<string, unknown>);
  }

  const refusal = (status: number, code: string) => expect.objectContaining({ constructor: ApiError, status, code });

  it("answers 404 for a participant that does not exist", async () => {
    await expect(getCashbackState(club.db, club.scope, "ninguem", noon("2026-11-05"))).rejects.toEqual(refusal(404, "not_found"));
    await expect(claimCashback(club.db, club.scope, "ninguem", { now: noon("2026-11-05"), publicUrl: PUBLIC_URL })).rejects.toEqual(refusal(404, "not_found"));
  });

  it("computes each day's net loss from the bets, claims all waiting days as one cash delivery, then has nothing to claim", async () => {
    const scope = await cashbackClub();
    await join(scope, "ana");
    await bet(scope, "ana", noon("2026-11-10"), "100", "20");
    await bet(scope, "ana", noon("2026-11-11"), "600", "50");
    await bet(scope, "ana", noon("2026-11-12"), "60");
    // A repeat of a bet is not a second bet.
    await ingestEvent(club.db, scope, eventInput({ participant: "ana", type: "bet.placed", id: "bet-1", amount: "100" }), {
      now: noon("2026-11-12"),
      publicUrl: PUBLIC_URL,
    });

    const state = await getCashbackState(club.db, scope, "ana", noon("2026-11-12"));
    expectResponse("Me_getCashback", "200", state);
    expect(state).toEqual({
      enabled: true,
      mode: "claim",
      available: 59,
      availableDays: [
        { dayKey: "2026-11-10", amount: 4, pct: 5, loss: 80 },
        { dayKey: "2026-11-11", amount: 55, pct: 10, loss: 550 },
      ],
      today: { amount: 3, loss: 60, pct: 5, band: "Bronze" },
      pctRange: { min: 5, max: 15 },
      nextDayAt: "2026-11-13T03:00:00.000Z",
      autoHour: 10,
      claimDays: 7,
      monthReceived: 0,
    });

    const claim = await claimCashback(club.db, scope, "ana", { now: noon("2026-11-12"), publicUrl: PUBLIC_URL });
    expectResponse("Me_claimCashback", "200", claim);
    expect(claim).toMatchObject({ claimed_minor: 5900, days: ["2026-11-10", "2026-11-11"], delivery_id: expect.stringMatching(/^dlv_/) });
    expect(claim.state).toMatchObject({ available: 0, availableDays: [], monthReceived: 59, today: { amount: 3 } });
    const [requested] = await webhooks(scope, "reward.delivery_requested");
    expect(requested).toMatchObject({
      source: "cashback:2026-11-10..2026-11-11",
      reward: { code: "cashback", title: "Cashback", type: "client_delivered", payload: { kind: "cash", amount_cents: 5900 } },
      delivery: { id: claim.delivery_id },
    });
    expect(schemaValidators.CashbackCreditedWebhookData((await webhooks(scope, "cashback.credited"))[0])).toBe(true);
    expect(await webhooks(scope, "cashback.credited")).toEqual([
      {
        participant: { id: expect.stringMatching(/^par_/), external_id: "ana" },
        amount_minor: 5900,
        days: ["2026-11-10", "2026-11-11"],
        delivery_id: claim.delivery_id,
      },
    ]);
    expect(await getCashbackState(club.db, scope, "ana", noon("2026-11-12"))).toEqual(claim.state);
    await expect(claimCashback(club.db, scope, "ana", { now: noon("2026-11-12"), publicUrl: PUBLIC_URL })).rejects.toEqual(refusal(409, "nothing_to_claim"));

    const next = await claimCashback(club.db, scope, "ana", { now: noon("2026-11-13"), publicUrl: PUBLIC_URL });
    expect(next).toMatchObject({ claimed_minor: 300, days: ["2026-11-12"], state: { monthReceived: 62 } });
    const sources = await club.db.em().find(ParticipantReward, { clubId: scope.clubId, rewardCode: "cashback" }, { orderBy: { grantedAt: "asc" } });
    expect(sources.map((reward) => [reward.source, reward.status])).toEqual([
      ["cashback:2026-11-10..2026-11-11", "pending"],
      ["cashback:2026-11-12", "pending"],
    ]);
  });

  it("records what each paid day paid, and counts it in the calendar month it was paid in, whatever the program says later", async () => {
    const scope = await cashbackClub();
    await join(scope, "lua", new Date("2026-10-01T12:00:00Z"));
    await bet(scope, "lua", noon("2026-10-30"), "100");
    await bet(scope, "lua", noon("2026-10-31"), "600");
    // Midnight of November 1st in São Paulo: October's last days are paid in November.
    const paidAt = new Date("2026-11-01T03:00:00Z");
    const claim = await claimCashback(club.db, scope, "lua", { now: paidAt, publicUrl: PUBLIC_URL });
    expect(claim).toMatchObject({ claimed_minor: 6500, state: { monthReceived: 65 } });
    const [reward] = await club.db.em().find(ParticipantReward, { clubId: scope.clubId, rewardCode: "cashback" });
    const credits = await club.db.em().find(CashbackCredit, { clubId: scope.clubId }, { orderBy: { dayKey: "asc" } });
    expect(
      credits.map(({ dayKey, loss, pct, amount, participantRewardId, deliveryId }) => ({ dayKey, loss, pct, amount, participantRewardId, deliveryId })),
    ).toEqual([
      { dayKey: "2026-10-30", loss: 10000, pct: 5, amount: 500, participantRewardId: reward.id, deliveryId: claim.delivery_id },
      { dayKey: "2026-10-31", loss: 60000, pct: 10, amount: 6000, participantRewardId: reward.id, deliveryId: claim.delivery_id },
    ]);
    expect(credits.every((credit) => credit.paidAt.getTime() === paidAt.getTime())).toBe(true);

    await updateCashbackProgram(club.db, scope, { min_pct: 15, tiers: [] });
    expect((await getCashbackState(club.db, scope, "lua", new Date("2026-12-01T02:59:59.999Z"))).monthReceived).toBe(65);
    expect((await getCashbackState(club.db, scope, "lua", new Date("2026-12-01T03:00:00Z"))).monthReceived).toBe(0);
  });

  it("pays only one of five concurrent claims", async () => {
    const scope = await cashbackClub();
    await join(scope, "bia");
    await bet(scope, "bia", noon("2026-11-10"), "100");
    const results = await Promise.allSettled(
      Array.from({ length: 5 }, () => claimCashback(club.db, scope, "bia", { now: noon("2026-11-11"), publicUrl: PUBLIC_URL })),
    );
    expect(results.filter((result) => result.status === "fulfilled")).toHaveLength(1);
    for (const result of results) if (result.status === "rejected") expect(result.reason).toEqual(refusal(409, "nothing_to_claim"));
  });

  it.each([1, 7, 30])("keeps a day exactly claim_days (%i) old claimable and drops the day before it", async (claimDays) => {
    const scope = await cashbackClub({ claim_days: claimDays });
    await join(scope, "caio", new Date("2026-10-01T12:00:00Z"));
    const today = new Date(Date.UTC(2026, 10, 20, 15));
    const daysAgo = (days: number) => new Date(today.getTime() - days * 86_400_000);
    await bet(scope, "caio", daysAgo(claimDays), "100");
    await bet(scope, "caio", daysAgo(claimDays + 1), "200");
    const state = await getCashbackState(club.db, scope, "caio", today);
    expect(state.availableDays).toEqual([{ dayKey: daysAgo(claimDays).toISOString().slice(0, 10), amount: 5, pct: 5, loss: 100 }]);
    expect(state.claimDays).toBe(claimDays);
  });

  it("pays the welcome percentage, up to its cap, on the participant's first day", async () => {
    const scope = await cashbackClub({ welcome: { enabled: true, pct: 20, max_minor: 10000 } });
    await join(scope, "davi", noon("2026-11-10"));
    await bet(scope, "davi", noon("2026-11-10"), "300");
    await bet(scope, "davi", noon("2026-11-11"), "300");
    const state = await getCashbackState(club.db, scope, "davi", noon("2026-11-12"));
    expect(state.availableDays).toEqual([
      { dayKey: "2026-11-10", amount: 60, pct: 20, loss: 300 },
      { dayKey: "2026-11-11", amount: 15, pct: 5, loss: 300 },
    ]);
    await join(scope, "elis", noon("2026-11-10"));
    await bet(scope, "elis", noon("2026-11-10"), "1000");
    expect((await getCashbackState(club.db, scope, "elis", noon("2026-11-11"))).availableDays[0]).toMatchObject({ amount: 100, pct: 20 });
  });

  it("refuses claims in auto mode and while disabled", async () => {
    const auto = await cashbackClub({ mode: "auto" });
    await join(auto, "fabio");
    await expect(claimCashback(club.db, auto, "fabio", { now: noon("2026-11-12"), publicUrl: PUBLIC_URL })).rejects.toEqual(refusal(409, "cashback_auto_mode"));
    const off = await cashbackClub({ enabled: false });
    await join(off, "fabio");
    await expect(claimCashback(club.db, off, "fabio", { now: noon("2026-11-12"), publicUrl: PUBLIC_URL })).rejects.toEqual(refusal(409, "cashback_disabled"));
    expect(await getCashbackState(club.db, off, "fabio", noon("2026-11-12"))).toMatchObject({ enabled: false, available: 0 });
  });

  it("auto mode pays each participant's yesterday at `hour`, one payment per day, and never twice", async () => {
    const scope = await cashbackClub({ mode: "auto", hour: 10 });
    await join(scope, "gil");
    await join(scope, "hana");
    await join(scope, "ivo");
    await bet(scope, "gil", noon("2026-11-13"), "100");
    await bet(scope, "gil", noon("2026-11-14"), "200");
    await bet(scope, "hana", noon("2026-11-14"), "600", "100");
    await bet(scope, "ivo", noon("2026-11-14"), "40"); // below min_loss_minor

    // 09:59:59 in São Paulo: the 14th is not due yet, the 13th is.
    const early = await creditDueCashback(club.db, scope, { now: new Date("2026-11-15T12:59:59Z"), publicUrl: PUBLIC_URL });
    expect(early).toEqual({ payments: 1, amount: 500 });
    const due = await creditDueCashback(club.db, scope, { now: new Date("2026-11-15T13:00:00Z"), publicUrl: PUBLIC_URL });
    expect(due).toEqual({ payments: 2, amount: 1000 + 5000 });
    expect(await creditDueCashback(club.db, scope, { now: new Date("2026-11-15T13:05:00Z"), publicUrl: PUBLIC_URL })).toEqual({ payments: 0, amount: 0 });

    const credited = await webhooks(scope, "cashback.credited");
    expect(credited.map((data) => [(data.participant as { external_id: string }).external_id, data.amount_minor, data.days])).toEqual([
      ["gil", 500, ["2026-11-13"]],
      expect.anything(),
      expect.anything(),
    ]);
    expect(
      credited
        .slice(1)
        .map((data) => [(data.participant as { external_id: string }).external_id, data.amount_minor, data.days])
        .sort(),
    ).toEqual([
      ["gil", 1000, ["2026-11-14"]],
      ["hana", 5000, ["2026-11-14"]],
    ]);
    expect(await getCashbackState(club.db, scope, "gil", new Date("2026-11-15T13:05:00Z"))).toMatchObject({ mode: "auto", available: 0, monthReceived: 15 });
  });

  it("auto mode catches up on unpaid days within claim_days and does nothing in claim mode", async () => {
    const scope = await cashbackClub({ mode: "auto", claim_days: 2 });
    await join(scope, "jade");
    await bet(scope, "jade", noon("2026-11-11"), "100");
    await bet(scope, "jade", noon("2026-11-12"), "100");
    await bet(scope, "jade", noon("2026-11-13"), "100");
    expect(await creditDueCashback(club.db, scope, { now: noon("2026-11-14"), publicUrl: PUBLIC_URL })).toEqual({ payments: 2, amount: 1000 });
    expect((await webhooks(scope, "cashback.credited")).map((data) => data.days)).toEqual([["2026-11-12"], ["2026-11-13"]]);

    const claimMode = await cashbackClub();
    await join(claimMode, "jade");
    await bet(claimMode, "jade", noon("2026-11-13"), "100");
    expect(await creditDueCashback(club.db, claimMode, { now: noon("2026-11-14"), publicUrl: PUBLIC_URL })).toEqual({ payments: 0, amount: 0 });
  });

  it("counts only bets in the program's currency and games it lets through, minus the club-wide games.exclude", async () => {
    const scope = await cashbackClub({ games: { only: { categories: ["video-slots"] }, exclude: { providers: ["evolution"] } } });
    await join(scope, "kai");
    const day = noon("2026-11-10");
    const placed = async (id: string, amount: string, extra: Record<string, unknown>) =>
      ingestEvent(club.db, scope, eventInput({ participant: "kai", type: "bet.placed", id, amount, ...extra }), { now: day, publicUrl: PUBLIC_URL });
    await placed("slots-brl", "100", { meta: { game_type: "video-slots" } }); // counts
    await placed("slots-usd", "1000", { currency: "USD", meta: { game_type: "video-slots" } }); // another currency: not converted, ignored
    await placed("blackjack", "500", { meta: { game_type: "video-slots", game_id: "blackjack-classic" } }); // the demo's games.exclude
    await placed("live", "300", { meta: { game_type: "live-casino" } }); // not in the program's `only`
    await placed("evolution", "200", { meta: { game_type: "video-slots", game_provider: "evolution" } }); // the program's `exclude`
    await placed("no-meta", "700", {}); // no game meta: fails a non-empty `only`
    await ingestEvent(
      club.db,
      scope,
      eventInput({ participant: "kai", type: "bet.settled", id: "usd-win", amount: "900", currency: "USD", meta: { game_type: "video-slots" } }),
      { now: day, publicUrl: PUBLIC_URL },
    );

    const state = await getCashbackState(club.db, scope, "kai", noon("2026-11-11"));
    expectResponse("Me_getCashback", "200", state);
    expect(state.availableDays).toEqual([{ dayKey: "2026-11-10", amount: 5, pct: 5, loss: 100 }]);

    // The auto run reads the whole club's bets through the same filter.
    const auto = await cashbackClub({ mode: "auto", currency: "USD" });
    await join(auto, "kai");
    await ingestEvent(
      club.db,
      auto,
      eventInput({ participant: "kai", type: "bet.placed", id: "u1", amount: "100", currency: "USD", meta: { game_type: "crash" } }),
      { now: day, publicUrl: PUBLIC_URL },
    );
    await ingestEvent(
      club.db,
      auto,
      eventInput({ participant: "kai", type: "bet.placed", id: "u2", amount: "900", currency: "USD", meta: { game_id: "blackjack-classic" } }),
      { now: day, publicUrl: PUBLIC_URL },
    );
    await ingestEvent(club.db, auto, eventInput({ participant: "kai", type: "bet.placed", id: "b1", amount: "5000", meta: { game_type: "crash" } }), {
      now: day,
      publicUrl: PUBLIC_URL,
    });
    expect(await creditDueCashback(club.db, auto, { now: noon("2026-11-11"), publicUrl: PUBLIC_URL })).toEqual({ payments: 1, amount: 500 });
  });

  it("names the currency of programs that never set one (BRL) and refuses a malformed one", async () => {
    const scope = await cashbackClub();
    const program = await updateCashbackProgram(club.db, scope, { enabled: true });
    expect(program.currency).toBe("BRL");
    expect(program.games).toBeUndefined();
    expect(schemaValidators.CashbackProgram(structuredClone(program))).toBe(true);
    await expect(updateCashbackProgram(club.db, scope, { currency: "brl" })).rejects.toEqual(refusal(422, "validation_failed"));
  });
});
