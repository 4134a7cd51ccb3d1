import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { dayKey, instantOf, localDateTime } from "../../server/src/engine/time.js";
import { editionAt, editionContaining, officialPeriod, type TournamentConfig } from "../../server/src/engine/tournaments/editions.js";

/**
 * Editions and official periods are memoized (engine/tournaments/editions.ts)
 * by what decides them. Checked here against the plain computation from the
 * calendar functions, in random order so memo hits and misses interleave.
 */

const ZONES = ["America/Sao_Paulo", "America/New_York", "Europe/London", "Australia/Lord_Howe", "Asia/Kathmandu", "UTC"];
const DAY_MS = 86_400_000;

/** The plain computation the memo stands for: the local day or month around `instant`, from local midnight to the next. */
function plainOfficialPeriod(period: "daily" | "monthly", instant: Date, timeZone: string) {
  const local = localDateTime(instant, timeZone);
  const midnight = { hour: 0, minute: 0, second: 0 };
  const start = period === "daily" ? { year: local.year, month: local.month, day: local.day } : { year: local.year, month: local.month, day: 1 };
  const next = period === "daily" ? new Date(Date.UTC(local.year, local.month - 1, local.day + 1)) : new Date(Date.UTC(local.year, local.month, 1));
  return {
    startsAt: instantOf({ ...start, ...midnight }, timeZone),
    endsAt: instantOf({ year: next.getUTCFullYear(), month: next.getUTCMonth() + 1, day: next.getUTCDate(), ...midnight }, timeZone),
  };
}

/** The n-th weekly edition: the configured window moved n × 7 days on the club's wall clock. */
function plainEdition(tournament: TournamentConfig, index: number, timeZone: string) {
  const move = (iso: string) => {
    const local = localDateTime(new Date(iso), timeZone);
    const moved = new Date(Date.UTC(local.year, local.month - 1, local.day + 7 * index));
    return index === 0
      ? new Date(iso)
      : instantOf({ ...local, year: moved.getUTCFullYear(), month: moved.getUTCMonth() + 1, day: moved.getUTCDate() }, timeZone);
  };
  const startsAt = move(tournament.startsAt);
  return { key: dayKey(startsAt, timeZone), index, startsAt, endsAt: move(tournament.endsAt) };
}

const instant = fc.integer({ min: Date.UTC(2024, 0, 1), max: Date.UTC(2029, 0, 1) }).map((ms) => new Date(ms));

describe("memoized editions", () => {
  it("official days and months match the plain computation", () => {
    fc.assert(
      fc.property(instant, fc.constantFrom(...ZONES), fc.constantFrom("daily" as const, "monthly" as const), (at, zone, period) => {
        const memo = officialPeriod(period, at, zone);
        expect(officialPeriod(period, at, zone)).toBe(memo);
        expect({ startsAt: memo.startsAt, endsAt: memo.endsAt }).toEqual(plainOfficialPeriod(period, at, zone));
        expect(memo.startsAt.getTime() <= at.getTime() && at.getTime() < memo.endsAt.getTime()).toBe(true);
      }),
      { numRuns: 3000 },
    );
  });

  it("weekly editions match the plain computation, and a changed window is never answered from the memo", () => {
    const window = fc.tuple(instant, fc.integer({ min: 1, max: 6 * 24 })).map(
      ([start, hours]): TournamentConfig =>
        ({
          id: "t",
          title: "T",
          event: "bet.placed",
          scoring: "sum",
          recurrence: "weekly",
          startsAt: start.toISOString(),
          endsAt: new Date(start.getTime() + hours * 3_600_000).toISOString(),
          prizes: [],
        }) as unknown as TournamentConfig,
    );
    fc.assert(
      fc.property(window, fc.integer({ min: 0, max: 60 }), fc.constantFrom(...ZONES), (tournament, index, zone) => {
        expect(editionAt(tournament, index, zone)).toEqual(plainEdition(tournament, index, zone));
        const inside = new Date(plainEdition(tournament, index, zone).startsAt.getTime() + DAY_MS / 48);
        const found = editionContaining(tournament, inside, zone);
        if (found) expect(found).toEqual(plainEdition(tournament, found.index, zone));
      }),
      { numRuns: 2000 },
    );
  });

  it("the edition containing an instant is the plain search's, for a tournament asked again and again and edited in place", () => {
    /** The search without the kept candidates: the offset's week, then the week before and after. */
    const plainContaining = (tournament: TournamentConfig, at: Date, zone: string) => {
      const offset = at.getTime() - Date.parse(tournament.startsAt);
      if (offset < 0) return null;
      const weekly = tournament.recurrence === "weekly";
      const guess = weekly ? Math.floor(offset / (7 * DAY_MS)) : 0;
      for (const index of [guess, guess - 1, guess + 1]) {
        if (index < 0 || (index > 0 && !weekly)) continue;
        const edition = plainEdition(tournament, index, zone);
        if (edition.startsAt <= at && at < edition.endsAt) return edition;
      }
      return null;
    };
    // One object per run, its window and recurrence changed between the asks as an edited config would be.
    const tournament = {
      id: "t",
      title: "T",
      event: "bet.placed",
      scoring: "sum",
      recurrence: "weekly",
      startsAt: "",
      endsAt: "",
      prizes: [],
    } as unknown as TournamentConfig;
    const ask = fc.record({
      start: instant,
      hours: fc.integer({ min: 1, max: 10 * 24 }),
      recurrence: fc.constantFrom("weekly", "none"),
      zone: fc.constantFrom(...ZONES),
      later: fc.array(fc.integer({ min: -DAY_MS, max: 30 * DAY_MS }), { minLength: 1, maxLength: 8 }),
    });
    fc.assert(
      fc.property(fc.array(ask, { minLength: 1, maxLength: 4 }), (asks) => {
        for (const { start, hours, recurrence, zone, later } of asks) {
          Object.assign(tournament, { recurrence, startsAt: start.toISOString(), endsAt: new Date(start.getTime() + hours * 3_600_000).toISOString() });
          for (const ms of later) {
            const at = new Date(start.getTime() + ms);
            expect(editionContaining(tournament, at, zone)).toEqual(plainContaining(tournament, at, zone));
          }
        }
      }),
      { numRuns: 500 },
    );
  });
});
