import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Delivery, LedgerEntry, Participant, ParticipantReward, TournamentSettlement, TournamentStanding } from "../../../server/src/db/entities/index.js";
import { validateClubConfig } from "../../../server/src/usecases/club/config.js";
import { ingestBatch, ingestEvent } from "../../../server/src/usecases/events/ingest.js";
import { settleTournaments, settleTournamentsForAllClubs } from "../../../server/src/usecases/tournaments/settlement.js";
import { listMyTournaments, listStandings, listTournaments } from "../../../server/src/usecases/tournaments/views.js";
import { describeEachDatabase } from "../../support/databases.js";
import { eventInput, participantRow, PUBLIC_URL, recordedWebhooks } from "../fixtures.js";
import { openTestClub, type DatabaseClub } from "../../support/club.js";
import { demoConfig } from "../../support/club-config.js";

const none = { categories: [], providers: [], games: [] };
const slotsOnly = { only: { ...none, categories: ["video-slots"] }, exclude: none };

/** The demo casino plus tournaments of each scoring kind (club zone São Paulo; Monday 2026-11-23 00:00 local = 03:00Z) and official tournaments. */
function config(): Record<string, unknown> {
  const base = demoConfig();
  return {
    ...base,
    // No rule gives leaderboard points: tournaments score from their own config.
    rules: (base.rules as { id: string }[]).filter((rule) => rule.id !== "slots-points"),
    tournaments: [
      {
        id: "soma",
        title: "Soma semanal",
        event: "bet.placed",
        games: slotsOnly,
        scoring: "sum",
        recurrence: "weekly",
        minScore: 10,
        startsAt: "2026-11-23T03:00:00Z",
        endsAt: "2026-11-30T03:00:00Z",
        prizes: [
          { from: 1, to: 1, reward: "bonus-20" },
          { from: 2, to: 3, reward: "coins-50" },
        ],
      },
      {
        id: "contagem",
        title: "Contagem",
        event: "bet.placed",
        scoring: "count",
        conditions: [{ field: "amount", op: ">=", value: 5 }],
        startsAt: "2026-11-23T03:00:00Z",
        endsAt: "2026-11-30T03:00:00Z",
        prizes: [{ from: 1, to: 1, reward: "coins:7" }],
      },
      {
        id: "multiplicador",
        title: "Multiplicador",
        event: "bet.settled",
        scoring: "max_ratio",
        field: "meta.win",
        startsAt: "2026-11-23T03:00:00Z",
        endsAt: "2026-11-30T03:00:00Z",
        prizes: [{ from: 1, to: 1, reward: "free-spins-50" }],
      },
    ],
    officialTournaments: {
      enabled: true,
      timezone: "America/Sao_Paulo",
      daily: { poolPercent: 10, seed: 5, split: [60, 40], minWager: 20 },
      monthly: { enabled: false },
    },
  };
}

const at = (iso: string) => new Date(iso);

describeEachDatabase("tournaments: scoring on ingestion, settlement, views", (kind) => {
  let club: DatabaseClub;

  beforeAll(async () => {
    club = await openTestClub(kind, { config: config(), now: at("2026-11-20T12:00:00Z") });
  });
  afterAll(async () => {
    await club?.close();
  });

  async function bet(participant: string, amount: number | string, when: string, meta: Record<string, unknown> = { game_type: "video-slots" }, now = when) {
    await ingestEvent(club.db, club.scope, eventInput({ type: "bet.placed", participant, amount, occurred_at: when, meta }), {
      now: at(now),
      publicUrl: PUBLIC_URL,
    });
  }

  async function standing(participant: string, tournamentId: string, editionKey: string) {
    const row = await participantRow(club.db, club.scope, participant);
    return (await club.db.em().fork().findOne(TournamentStanding, { participantId: row.id, tournamentId, editionKey }))?.score ?? null;
  }

  it("scores each kind from the tournament's config, skipping events outside the window", async () => {
    await bet("ana", "30.50", "2026-11-24T12:00:00Z");
    await bet("ana", 10, "2026-11-24T13:00:00Z", { game_type: "live-casino" }); // not a slot: sum skips it, count takes it
    await bet("bia", 30.5, "2026-11-24T12:30:00Z"); // ties with ana, reached later
    await bet("caio", 3, "2026-11-24T14:00:00Z"); // below minScore and below count's condition
    await bet("ana", 100, "2026-11-23T02:59:00Z"); // before startsAt (Sunday night local)
    // A batch goes through the same hook.
    await ingestBatch(
      club.db,
      club.scope,
      [
        eventInput({ type: "bet.settled", participant: "bia", amount: 2, meta: { win: 25 }, occurred_at: "2026-11-24T15:00:00Z" }),
        eventInput({ type: "bet.settled", participant: "bia", amount: 10, meta: { win: 30 }, occurred_at: "2026-11-24T15:01:00Z" }),
        eventInput({ type: "bet.settled", participant: "ana", amount: 1, meta: { win: 9 }, occurred_at: "2026-11-24T15:02:00Z" }),
        eventInput({ type: "bet.placed", participant: "dani", amount: 40, meta: { game_type: "video-slots" }, occurred_at: "2026-11-24T16:00:00Z" }),
      ],
      { now: at("2026-11-24T16:00:00Z"), publicUrl: PUBLIC_URL },
    );
    expect(await standing("ana", "soma", "2026-11-23")).toBe(3050);
    expect(await standing("bia", "soma", "2026-11-23")).toBe(3050);
    expect(await standing("dani", "soma", "2026-11-23")).toBe(4000);
    expect(await standing("ana", "contagem", "2026-11-23")).toBe(200);
    expect(await standing("caio", "contagem", "2026-11-23")).toBeNull();
    expect(await standing("bia", "multiplicador", "2026-11-23")).toBe(1250);
    expect(await standing("ana", "multiplicador", "2026-11-23")).toBe(900);
    // Official daily slots track: São Paulo day 2026-11-24.
    expect(await standing("ana", "official:slots:daily:BRL", "2026-11-24")).toBe(3050);
    expect(await standing("ana", "official:ao-vivo:daily:BRL", "2026-11-24")).toBe(1000);
  });

  it("shows standings with ties broken by who reached the score first", async () => {
    const mine = await listMyTournaments(club.db, club.scope, "bia", { limit: 5, now: at("2026-11-24T17:00:00Z") });
    const soma = mine.data.find((view) => view.tournament_id === "soma" && view.edition_id === "2026-11-23")!;
    expect(soma).toMatchObject({
      status: "running",
      score: 30.5,
      rank: 3,
      prizes: [
        { from: 1, to: 1, reward: "bonus-20", amount_minor: null },
        { from: 2, to: 3, reward: "coins-50", amount_minor: null },
      ],
    });
    expect(soma.top.map((row) => [row.rank, row.score, row.is_me])).toEqual([
      [1, 40, false],
      [2, 30.5, false],
      [3, 30.5, true],
    ]);
    const slots = mine.data.find((view) => view.tournament_id === "official:slots:daily:BRL" && view.edition_id === "2026-11-24")!;
    // Pool: 5.00 seed + 10 % of (30.50 + 30.50 + 3 + 40) = 500 + 1040 cents.
    expect(slots).toMatchObject({ kind: "official", pool_minor: 1540, currency: "BRL", rank: 3 });
    expect(slots.prizes).toEqual([
      { from: 1, to: 1, reward: "official-tournament-prize", amount_minor: 924 },
      { from: 2, to: 2, reward: "official-tournament-prize", amount_minor: 616 },
    ]);
    const page = await listStandings(club.db, club.scope, "soma", "2026-11-23", { limit: 2, now: at("2026-11-24T17:00:00Z") });
    expect(page.data.map((row) => row.external_id)).toEqual(["dani", "ana"]);
    expect(page.has_more).toBe(true);
    const next = await listStandings(club.db, club.scope, "soma", "2026-11-23", { limit: 2, afterRank: 2, now: at("2026-11-24T17:00:00Z") });
    expect(next.data.map((row) => [row.rank, row.external_id])).toEqual([[3, "bia"]]);
    expect(next.has_more).toBe(false);
    const list = await listTournaments(club.db, club.scope, at("2026-11-24T17:00:00Z"));
    expect(list.data.find((entry) => entry.tournament_id === "soma")?.editions[0]).toMatchObject({
      edition_id: "2026-11-23",
      participants: 4,
      status: "running",
    });
  });

  it("settles the official day once, even with two workers at the same time; minWager keeps caio out", async () => {
    const now = at("2026-11-25T03:02:00Z");
    const runs = await Promise.all([
      settleTournamentsForAllClubs(club.db, { now, publicUrl: PUBLIC_URL }),
      settleTournamentsForAllClubs(club.db, { now, publicUrl: PUBLIC_URL }),
    ]);
    expect(runs[0].settled + runs[1].settled).toBe(2); // slots and ao-vivo of 2026-11-24
    const deliveries = await club.db
      .em()
      .fork()
      .find(Delivery, { ...club.scope, rewardCode: "official-tournament-prize" }, { orderBy: { createdAt: "asc" } });
    // Slots: dani 1st, ana 2nd (reached 30.50 before bia); ao-vivo: ana wagered 10, below minWager 20.
    expect(deliveries).toHaveLength(2);
    const webhooks = await recordedWebhooks(club.db, club.scope);
    const finished = webhooks.filter((hook) => hook.type === "tournament.finished");
    expect(finished.map((hook) => hook.data.tournament_id).sort()).toEqual(["official:ao-vivo:daily:BRL", "official:slots:daily:BRL"]);
    const slots = finished.find((hook) => hook.data.tournament_id === "official:slots:daily:BRL")!.data as {
      pool_minor: number;
      prizes: { amount_minor: number; participant: { external_id: string } }[];
    };
    expect(slots.pool_minor).toBe(1540);
    expect(slots.prizes.map((prize) => [prize.participant.external_id, prize.amount_minor])).toEqual([
      ["dani", 924],
      ["ana", 616],
    ]);
    const requested = webhooks.filter(
      (hook) => hook.type === "reward.delivery_requested" && (hook.data.reward as { code: string }).code === "official-tournament-prize",
    );
    expect((requested[0].data.reward as { payload: Record<string, unknown> }).payload).toMatchObject({ kind: "cash", amount_minor: 924, currency: "BRL" });
  });

  it("settles the weekly edition at endsAt: minScore, prize ranges, late events ignored, next edition starts empty", async () => {
    // Processed after the edition closed (2 minutes after its end): changes nothing.
    await bet("caio", 500, "2026-11-29T12:00:00Z", { game_type: "video-slots" }, "2026-11-30T03:02:01Z");
    expect(await standing("caio", "soma", "2026-11-23")).toBe(300);
    const before = await settleTournaments(club.db, club.scope, { now: at("2026-11-30T03:01:59Z"), publicUrl: PUBLIC_URL });
    expect(before.settled).toBe(0);
    const runs = await Promise.all([1, 2].map(() => settleTournaments(club.db, club.scope, { now: at("2026-11-30T03:02:01Z"), publicUrl: PUBLIC_URL })));
    expect(runs[0].settled + runs[1].settled).toBe(3);
    const rewards = (
      await club.db
        .em()
        .fork()
        .find(ParticipantReward, { ...club.scope, source: { $like: "tournament:%" } })
    ).filter((reward) => !reward.source.startsWith("tournament:official:"));
    expect(rewards.map((reward) => `${reward.source}→${reward.rewardCode}`).sort()).toEqual([
      "tournament:multiplicador:2026-11-23→free-spins-50",
      "tournament:soma:2026-11-23→bonus-20",
      "tournament:soma:2026-11-23→coins-50",
      "tournament:soma:2026-11-23→coins-50",
    ]);
    // A currency prize is credited to the balance (no reward row): 7 coins to ana, who counted two bets.
    const counted = (await recordedWebhooks(club.db, club.scope)).find(
      (hook) => hook.type === "tournament.finished" && hook.data.tournament_id === "contagem",
    )!;
    expect(counted.data.prizes).toEqual([
      expect.objectContaining({ rank: 1, reward: "coins:7", reward_id: null, delivery_id: null, participant: expect.objectContaining({ external_id: "ana" }) }),
    ]);
    const ana = await participantRow(club.db, club.scope, "ana");
    expect((await club.db.em().fork().find(LedgerEntry, { participantId: ana.id, unit: "coins" })).map((line) => line.delta)).toContain(7);
    const settlements = await club.db
      .em()
      .fork()
      .find(TournamentSettlement, { ...club.scope, tournamentId: "soma" });
    expect(settlements).toHaveLength(1);
    const frozen = settlements[0].results as { standings: { participant: { external_id: string }; rank: number }[] };
    // caio (3.00) is below minScore 10.
    expect(frozen.standings.map((row) => row.participant.external_id)).toEqual(["dani", "ana", "bia"]);
    // A repeated pass pays nothing more.
    expect((await settleTournaments(club.db, club.scope, { now: at("2026-11-30T04:00:00Z"), publicUrl: PUBLIC_URL })).settled).toBe(0);
    // The next weekly edition starts from zero.
    await bet("caio", 1, "2026-12-01T12:00:00Z");
    expect(await standing("caio", "soma", "2026-11-30")).toBe(100);
    const mine = await listMyTournaments(club.db, club.scope, "dani", { limit: 3, now: at("2026-12-01T13:00:00Z") });
    expect(mine.data.filter((view) => view.tournament_id === "soma").map((view) => [view.edition_id, view.status, view.rank])).toEqual([
      ["2026-11-23", "settled", 1],
      ["2026-11-30", "running", null],
    ]);
  });
});

describeEachDatabase("the demo casino's tournaments", (kind) => {
  let club: DatabaseClub;

  beforeAll(async () => {
    club = await openTestClub(kind, { config: demoConfig(), now: at("2026-11-20T12:00:00Z") });
  });
  afterAll(async () => {
    await club?.close();
  });

  it("'Torneio semanal de slots' ranks the week's slot wagers and pays bonus-20 to the winner and free-spins-20 to ranks 2-10; the official daily and monthly tracks pay their split of the pool", async () => {
    // Eleven players bet on slots in the week of 2026-11-23 (Monday, São Paulo); a crash bet does not count.
    const events = Array.from({ length: 11 }, (_, i) =>
      eventInput({
        type: "bet.placed",
        participant: `p${String(i + 1).padStart(2, "0")}`,
        amount: 100 - i * 5,
        meta: { game_type: "video-slots" },
        occurred_at: `2026-11-24T12:${String(i).padStart(2, "0")}:00Z`,
      }),
    );
    events.push(eventInput({ type: "bet.placed", participant: "p11", amount: 1000, meta: { game_type: "crash" }, occurred_at: "2026-11-24T13:00:00Z" }));
    await ingestBatch(club.db, club.scope, events, { now: at("2026-11-24T13:00:00Z"), publicUrl: PUBLIC_URL });
    const weekly = await listStandings(club.db, club.scope, "slots-semanal", "2026-11-23", { limit: 20, now: at("2026-11-24T14:00:00Z") });
    expect(weekly.data.map((row) => [row.rank, row.external_id, row.score])).toEqual(
      Array.from({ length: 11 }, (_, i) => [i + 1, `p${String(i + 1).padStart(2, "0")}`, 100 - i * 5]),
    );

    // The official day ends at midnight in São Paulo; the weekly edition on Monday 2026-11-30 00:00 local.
    await settleTournaments(club.db, club.scope, { now: at("2026-11-25T03:02:00Z"), publicUrl: PUBLIC_URL });
    await settleTournaments(club.db, club.scope, { now: at("2026-11-30T03:02:00Z"), publicUrl: PUBLIC_URL });
    const rewards = await club.db
      .em()
      .fork()
      .find(ParticipantReward, { ...club.scope, source: "tournament:slots-semanal:2026-11-23" });
    const byParticipant = new Map<string, string>();
    for (const reward of rewards) byParticipant.set((await club.db.em().fork().findOneOrFail(Participant, reward.participantId)).externalId, reward.rewardCode);
    expect(Object.fromEntries([...byParticipant].sort())).toEqual({
      p01: "bonus-20",
      p02: "free-spins-20",
      p03: "free-spins-20",
      p04: "free-spins-20",
      p05: "free-spins-20",
      p06: "free-spins-20",
      p07: "free-spins-20",
      p08: "free-spins-20",
      p09: "free-spins-20",
      p10: "free-spins-20",
    });
    // Slots pool: 50.00 seed + 10 % of 825.00 = 132.50 → 66.25, 39.75, 26.50.
    const finished = (await recordedWebhooks(club.db, club.scope)).filter(
      (hook) => hook.type === "tournament.finished" && hook.data.tournament_id === "official:slots:daily:BRL",
    );
    expect(finished).toHaveLength(1);
    expect(finished[0].data).toMatchObject({ pool_minor: 13250 });
    expect((finished[0].data.prizes as { amount_minor: number }[]).map((prize) => prize.amount_minor)).toEqual([6625, 3975, 2650]);
    // The crash bet made the aviator track's pool: 50.00 + 100.00, all to its only player (50 %).
    const aviator = (await recordedWebhooks(club.db, club.scope)).find(
      (hook) => hook.type === "tournament.finished" && hook.data.tournament_id === "official:aviator:daily:BRL",
    );
    expect((aviator?.data.prizes as { amount_minor: number }[]).map((prize) => prize.amount_minor)).toEqual([7500]);

    // The official month ends at midnight of 2026-12-01 in São Paulo (03:00Z), not at midnight UTC.
    const monthly = () =>
      recordedWebhooks(club.db, club.scope).then((hooks) =>
        hooks.filter((hook) => hook.type === "tournament.finished" && String(hook.data.tournament_id).endsWith(":monthly:BRL")),
      );
    await settleTournaments(club.db, club.scope, { now: at("2026-12-01T03:01:59Z"), publicUrl: PUBLIC_URL });
    expect(await monthly()).toEqual([]);
    await settleTournaments(club.db, club.scope, { now: at("2026-12-01T03:02:00Z"), publicUrl: PUBLIC_URL });
    // Slots: 1,000.00 seed + 5 % of 825.00; only p01 wagered the minWager of 100: 40 % of 1,041.25. Aviator: 40 % of 1,050.00.
    const months = Object.fromEntries((await monthly()).map((hook) => [hook.data.tournament_id, hook.data]));
    expect(months["official:slots:monthly:BRL"]).toMatchObject({
      edition_id: "2026-11",
      pool_minor: 104125,
      prizes: [expect.objectContaining({ rank: 1, amount_minor: 41650 })],
    });
    expect((months["official:slots:monthly:BRL"].prizes as unknown[]).length).toBe(1);
    expect(months["official:aviator:monthly:BRL"]).toMatchObject({ pool_minor: 105000, prizes: [expect.objectContaining({ amount_minor: 42000 })] });
  });
});

describe("official tournament settings", () => {
  it("refuses splits that would pay out more than the pool (422 naming the field)", () => {
    const with_ = (split: number[]) => ({ ...demoConfig(), officialTournaments: { enabled: true, daily: { split } } });
    expect(() => validateClubConfig(with_([60, 50]), "body")).toThrow("body.officialTournaments.daily.split adds up to more than 100 (110)");
    expect(validateClubConfig(with_([33.3333, 33.3333, 33.3334]), "body").officialTournaments?.daily?.split).toHaveLength(3);
  });
});
