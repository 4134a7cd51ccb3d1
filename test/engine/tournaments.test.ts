import { describe, expect, it } from "vitest";
import {
  awardPrizes,
  closedOfficialPeriod,
  editionContaining,
  endedEditions,
  officialPayouts,
  officialPeriod,
  officialPool,
  officialShare,
  previousOfficialPeriod,
  rankStandings,
  scoreEvent,
  type OfficialTournamentsConfig,
  type TournamentConfig,
} from "../../server/src/engine/tournaments/index.js";
import type { EngineEvent } from "../../server/src/engine/types.js";

const SP = "America/Sao_Paulo";
const none = { categories: [], providers: [], games: [] };

function tournament(patch: Partial<TournamentConfig> = {}): TournamentConfig {
  return {
    id: "tour1",
    title: "Tour",
    event: "bet.placed",
    startsAt: "2026-11-23T03:00:00Z",
    endsAt: "2026-11-30T03:00:00Z",
    prizes: [{ from: 1, to: 1, reward: "gold" }],
    scoring: "sum",
    field: "amount",
    recurrence: "none",
    minScore: 0,
    enabled: true,
    conditions: [],
    ...patch,
  };
}

function bet(at: string, amount: number | string, meta: Record<string, unknown> = {}): EngineEvent {
  return { type: "bet.placed", amount, currency: "BRL", occurred_at: at, meta: { game_type: "video-slots", ...meta } };
}

const score = (t: TournamentConfig, event: EngineEvent, now = event.occurred_at) => scoreEvent({ tournaments: [t], event, now: new Date(now), timeZone: SP });

describe("tournament scoring", () => {
  it("sum adds the field in hundredths, count adds one, max_ratio keeps field ÷ amount", () => {
    expect(score(tournament(), bet("2026-11-24T12:00:00Z", "10.55"))).toEqual([
      { tournamentId: "tour1", editionKey: "2026-11-23", mode: "add", score: 1055, reachedAt: new Date("2026-11-24T12:00:00Z") },
    ]);
    expect(score(tournament({ scoring: "count" }), bet("2026-11-24T12:00:00Z", 3))[0]).toMatchObject({ mode: "add", score: 100 });
    expect(score(tournament({ scoring: "max_ratio", field: "meta.win" }), bet("2026-11-24T12:00:00Z", 4, { win: 50 }))[0]).toMatchObject({
      mode: "max",
      score: 1250,
    });
    // No win, or no positive amount: no ratio.
    expect(score(tournament({ scoring: "max_ratio", field: "meta.win" }), bet("2026-11-24T12:00:00Z", 4))).toEqual([]);
    expect(score(tournament({ scoring: "max_ratio", field: "meta.win" }), bet("2026-11-24T12:00:00Z", 0, { win: 3 }))).toEqual([]);
  });

  it("applies conditions, the game filter, the event type and enabled", () => {
    const filtered = tournament({
      conditions: [{ field: "amount", op: ">=", value: 5 }],
      games: { only: { ...none, categories: ["video-slots"] }, exclude: { ...none, providers: ["bad"] } },
    });
    expect(score(filtered, bet("2026-11-24T12:00:00Z", 5))).toHaveLength(1);
    expect(score(filtered, bet("2026-11-24T12:00:00Z", 4))).toEqual([]);
    expect(score(filtered, bet("2026-11-24T12:00:00Z", 5, { game_type: "live-casino" }))).toEqual([]);
    expect(score(filtered, bet("2026-11-24T12:00:00Z", 5, { game_provider: "bad" }))).toEqual([]);
    expect(score(filtered, { ...bet("2026-11-24T12:00:00Z", 5), type: "deposit.completed" })).toEqual([]);
    expect(score(tournament({ enabled: false }), bet("2026-11-24T12:00:00Z", 5))).toEqual([]);
  });

  it("ignores events outside [startsAt, endsAt) and late events for an ended edition", () => {
    expect(score(tournament(), bet("2026-11-23T02:59:59Z", 5))).toEqual([]);
    expect(score(tournament(), bet("2026-11-23T03:00:00Z", 5))).toHaveLength(1);
    expect(score(tournament(), bet("2026-11-30T03:00:00Z", 5))).toEqual([]);
    // Occurred inside the window, processed just after the end: still counts during the grace, never after.
    expect(score(tournament(), bet("2026-11-29T12:00:00Z", 5), "2026-11-30T03:01:59Z")).toHaveLength(1);
    expect(score(tournament(), bet("2026-11-29T12:00:00Z", 5), "2026-11-30T03:02:00Z")).toEqual([]);
  });

  it("weekly editions have their own keys, so scores never leak across editions", () => {
    const weekly = tournament({ recurrence: "weekly", startsAt: "2026-11-23T03:00:00Z", endsAt: "2026-11-28T03:00:00Z" });
    expect(score(weekly, bet("2026-11-24T12:00:00Z", 5))[0].editionKey).toBe("2026-11-23");
    expect(score(weekly, bet("2026-12-01T12:00:00Z", 5))[0].editionKey).toBe("2026-11-30");
    // Between two editions (Sat–Mon) nothing scores.
    expect(score(weekly, bet("2026-11-29T12:00:00Z", 5))).toEqual([]);
    expect(editionContaining(weekly, new Date("2026-12-08T00:00:00Z"), SP)).toMatchObject({ key: "2026-12-07", index: 2 });
    expect(endedEditions(weekly, new Date("2026-12-06T00:00:00Z"), SP).map((e) => e.key)).toEqual(["2026-11-30", "2026-11-23"]);
    // Closed two minutes after the end.
    expect(endedEditions(weekly, new Date("2026-12-05T03:01:59Z"), SP).map((e) => e.key)).toEqual(["2026-11-23"]);
    expect(endedEditions(weekly, new Date("2026-12-05T03:02:00Z"), SP).map((e) => e.key)).toEqual(["2026-11-30", "2026-11-23"]);
    expect(endedEditions(weekly, new Date("2026-11-27T00:00:00Z"), SP)).toEqual([]);
  });

  it("weekly editions keep the club's wall-clock start across a DST change", () => {
    // New York leaves DST on 2026-11-01: editions start at 09:00 local, 13:00Z before and 14:00Z after.
    const weekly = tournament({ recurrence: "weekly", startsAt: "2026-10-26T13:00:00Z", endsAt: "2026-10-27T13:00:00Z" });
    expect(editionContaining(weekly, new Date("2026-11-02T13:30:00Z"), "America/New_York")).toBeNull();
    expect(editionContaining(weekly, new Date("2026-11-02T14:00:00Z"), "America/New_York")).toMatchObject({ key: "2026-11-02" });
  });
});

describe("ranking and prizes", () => {
  const at = (minute: number) => new Date(Date.UTC(2026, 10, 24, 12, minute));
  it("ranks by score, the earlier to reach a score first, and drops scores below minScore", () => {
    const ranked = rankStandings(
      [
        { participantId: "c", score: 500, reachedAt: at(3) },
        { participantId: "a", score: 900, reachedAt: at(5) },
        { participantId: "b", score: 500, reachedAt: at(1) },
        { participantId: "d", score: 100, reachedAt: at(0) },
      ],
      200,
    );
    expect(ranked.map((row) => [row.participantId, row.rank])).toEqual([
      ["a", 1],
      ["b", 2],
      ["c", 3],
    ]);
    expect(
      awardPrizes(ranked, [
        { from: 1, to: 1, reward: "gold" },
        { from: 2, to: 5, reward: "silver" },
      ]),
    ).toEqual([
      { participantId: "a", rank: 1, reward: "gold" },
      { participantId: "b", rank: 2, reward: "silver" },
      { participantId: "c", rank: 3, reward: "silver" },
    ]);
  });
});

describe("official tournaments", () => {
  const official = (patch: Partial<OfficialTournamentsConfig> = {}): OfficialTournamentsConfig => ({
    enabled: true,
    timezone: SP,
    daily: { enabled: true, poolPercent: 10, seed: 0, split: [100], minWager: 0 },
    monthly: { enabled: false, poolPercent: 10, seed: 0, split: [100], minWager: 0 },
    tracks: [
      { id: "slots", title: "Slots", games: { only: { ...none, categories: ["video-slots"] }, exclude: none }, enabled: true },
      { id: "ao-vivo", title: "Ao Vivo", games: { only: { ...none, categories: ["live-casino"] }, exclude: none }, enabled: true },
    ],
    ...patch,
  });

  it("scores wagers per matching track and enabled period, keyed by the day in the official time zone", () => {
    // 02:30Z on the 24th is still the 23rd in São Paulo (UTC−3).
    const deltas = scoreEvent({
      tournaments: [],
      officialTournaments: official(),
      event: bet("2026-11-24T02:30:00Z", "12.34"),
      now: new Date("2026-11-24T02:30:00Z"),
      timeZone: "UTC",
    });
    expect(deltas).toEqual([
      { tournamentId: "official:slots:daily:BRL", editionKey: "2026-11-23", mode: "add", score: 1234, reachedAt: new Date("2026-11-24T02:30:00Z") },
    ]);
    const both = scoreEvent({
      tournaments: [],
      officialTournaments: official({ monthly: { enabled: true } }),
      event: bet("2026-12-01T02:59:59Z", 1, { game_type: "live-casino" }),
      now: new Date("2026-12-01T02:59:59Z"),
      timeZone: "UTC",
    });
    expect(both.map((d) => [d.tournamentId, d.editionKey])).toEqual([
      ["official:ao-vivo:daily:BRL", "2026-11-30"],
      ["official:ao-vivo:monthly:BRL", "2026-11"],
    ]);
    expect(
      scoreEvent({
        tournaments: [],
        officialTournaments: official({ enabled: false }),
        event: bet("2026-11-24T12:00:00Z", 1),
        now: new Date("2026-11-24T12:00:00Z"),
        timeZone: SP,
      }),
    ).toEqual([]);
  });

  it("cuts days and months at midnight in the official time zone", () => {
    expect(officialPeriod("daily", new Date("2026-11-24T02:59:59Z"), SP)).toMatchObject({
      key: "2026-11-23",
      startsAt: new Date("2026-11-23T03:00:00Z"),
      endsAt: new Date("2026-11-24T03:00:00Z"),
    });
    expect(officialPeriod("monthly", new Date("2026-12-01T03:00:00Z"), SP)).toMatchObject({
      key: "2026-12",
      startsAt: new Date("2026-12-01T03:00:00Z"),
      endsAt: new Date("2027-01-01T03:00:00Z"),
    });
    expect(previousOfficialPeriod("monthly", new Date("2026-12-01T03:00:00Z"), SP).key).toBe("2026-11");
    expect(previousOfficialPeriod("daily", new Date("2026-11-24T03:00:00Z"), SP).key).toBe("2026-11-23");
    expect(closedOfficialPeriod("daily", new Date("2026-11-24T03:01:59Z"), SP).key).toBe("2026-11-22");
    expect(closedOfficialPeriod("daily", new Date("2026-11-24T03:02:00Z"), SP).key).toBe("2026-11-23");
  });

  it("pool is seed + percent of wagers; split shares round down and never exceed the pool", () => {
    expect(officialPool(123_457, { poolPercent: 10, seed: 50 })).toBe(5000 + 12_345);
    expect(officialPool(1_000, { poolPercent: 2.5, seed: 0 })).toBe(25);
    const pool = 1001;
    const split = [33.3333, 33.3333, 33.3334];
    const shares = [1, 2, 3].map((rank) => officialShare(pool, split, rank));
    expect(shares).toEqual([333, 333, 333]);
    expect(shares.reduce((a, b) => a + b)).toBeLessThanOrEqual(pool);
    for (let p = 0; p < 500; p += 7) expect([1, 2, 3].reduce((sum, rank) => sum + officialShare(p, [50, 30, 20], rank), 0)).toBeLessThanOrEqual(p);
    const at = new Date();
    const ranked = rankStandings(
      [
        { participantId: "a", score: 900, reachedAt: at },
        { participantId: "b", score: 100, reachedAt: at },
      ],
      500,
    );
    expect(officialPayouts(ranked, 1000, [70, 30])).toEqual([{ participantId: "a", rank: 1, amountMinor: 700 }]);
  });
});
