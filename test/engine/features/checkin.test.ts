import { describe, expect, it } from "vitest";
import {
  NO_CHECKIN,
  checkinState,
  multipliedSpec,
  overlayRewardPayloads,
  planCheckin,
  referenceCode,
  type CheckinConfig,
  type CheckinInput,
} from "../../../server/src/engine/checkin.js";
import { grantRewards } from "../../../server/src/engine/evaluate.js";
import { blankState, casinoEngineConfig, SAO_PAULO } from "../fixtures.js";

/** A month calendar with a week of rewards, every default filled. */
function checkin(overrides: Partial<CheckinConfig> = {}): CheckinConfig {
  return {
    ...NO_CHECKIN,
    rewards: [
      { reward: "coins:10", label: "10 moedas", multiplier: 1 },
      { reward: "coins:20", multiplier: 1 },
      { reward: "reward:giros-10", label: "10 giros", multiplier: 2 },
    ],
    ...overrides,
  };
}

/** Local noon in São Paulo (UTC−3) of the day `key`. */
const noon = (key: string) => new Date(`${key}T15:00:00Z`);

function input(config: CheckinConfig, claimedDays: string[], now: Date, requiredEventSeen = false): CheckinInput {
  return { config, claimedDays, now, requiredEventSeen };
}

/** `2026-11-<dd>` for each day of the month given. */
const november = (...days: number[]) => days.map((day) => `2026-11-${String(day).padStart(2, "0")}`);

describe("check-in day", () => {
  it("starts at resetHour in the club time zone: 05:59:59 local is still the day before", () => {
    const config = checkin({ resetHour: 6 });
    const before = checkinState(input(config, [], new Date("2026-11-22T08:59:59Z")));
    const after = checkinState(input(config, [], new Date("2026-11-22T09:00:00Z")));
    expect(before.todayKey).toBe("2026-11-21");
    expect(before.nextDayAt).toBe("2026-11-22T09:00:00.000Z");
    expect(after.todayKey).toBe("2026-11-22");
    expect(after.nextDayAt).toBe("2026-11-23T09:00:00.000Z");
  });

  it("a claim just before the reset belongs to the old day, so the new day is claimable at once", () => {
    const config = checkin({ resetHour: 6 });
    const lastSecond = planCheckin(input(config, [], new Date("2026-11-22T08:59:59Z")));
    expect(lastSecond).toMatchObject({ ok: true, slot: { dayKey: "2026-11-21", dayIndex: 20 } });
    const nextDay = planCheckin(input(config, ["2026-11-21"], new Date("2026-11-22T09:00:00Z")));
    expect(nextDay).toMatchObject({ ok: true, slot: { dayKey: "2026-11-22", dayIndex: 21 } });
    expect(planCheckin(input(config, ["2026-11-21"], new Date("2026-11-22T08:59:59Z")))).toEqual({ ok: false, reason: "already_claimed" });
  });

  it.each([
    [0, "2026-11-22T02:59:59Z", "2026-11-21", "2026-11-22T03:00:00Z", "2026-11-22"],
    [23, "2026-11-23T01:59:59Z", "2026-11-21", "2026-11-23T02:00:00Z", "2026-11-22"],
  ])("resetHour %i (the bounds) turns the day at the right instant", (resetHour, lastInstant, lastKey, firstInstant, firstKey) => {
    const config = checkin({ resetHour });
    expect(checkinState(input(config, [], new Date(lastInstant))).todayKey).toBe(lastKey);
    const state = checkinState(input(config, [], new Date(firstInstant)));
    expect(state.todayKey).toBe(firstKey);
    expect(state.nextDayAt).toBe(new Date(new Date(firstInstant).getTime() + 86_400_000).toISOString());
  });
});

describe("month calendar", () => {
  it("has one slot per day of the month with past, today and future states", () => {
    const state = checkinState(input(checkin(), november(1, 2, 4), noon("2026-11-05"), true));
    expect(state).toMatchObject({
      todayKey: "2026-11-05",
      period: "month",
      daysInPeriod: 30,
      todayIndex: 4,
      currentDayIndex: 4,
      claimedToday: false,
      canClaim: true,
    });
    expect(state.days.slice(0, 6)).toEqual(["claimed", "claimed", "missed", "claimed", "available", "locked"]);
    expect(state.days).toHaveLength(30);
  });

  it.each([
    ["2026-02-10", 28],
    ["2028-02-10", 29],
    ["2026-12-10", 31],
  ])("in %s the calendar has %i slots whatever `days` says", (key, length) => {
    expect(checkinState(input(checkin({ days: 7 }), [], noon(key))).daysInPeriod).toBe(length);
  });

  it("starts a new calendar on the first day of the month", () => {
    const state = checkinState(input(checkin(), ["2026-10-30", "2026-10-31"], noon("2026-11-01")));
    expect(state.todayIndex).toBe(0);
    expect(state.days[0]).toBe("available");
    expect(state.streak).toBe(2);
  });

  it("after today's check-in points at tomorrow's slot", () => {
    const state = checkinState(input(checkin(), november(4, 5), noon("2026-11-05")));
    expect(state).toMatchObject({ claimedToday: true, canClaim: false, todayIndex: 4, currentDayIndex: 5, streak: 2 });
    expect(state.days[4]).toBe("claimed");
  });

  it("after checking in on the last day points past the calendar", () => {
    const state = checkinState(input(checkin(), ["2026-11-30"], noon("2026-11-30")));
    expect(state).toMatchObject({ todayIndex: 29, currentDayIndex: 30, daysInPeriod: 30 });
  });

  it("grants rewards[(day - 1) mod length]: day 5 of the month gets the second reward", () => {
    const plan = planCheckin(input(checkin(), [], noon("2026-11-05")));
    expect(plan).toMatchObject({ ok: true, slot: { dayIndex: 4, periodKey: "2026-11", spec: "coins:20", rewardCode: "coins:20" } });
  });

  it("applies the day's multiplier to currency and XP, not to a reward code", () => {
    const config = checkin({
      rewards: [
        { reward: "coins:10", multiplier: 3 },
        { reward: "giros-10", multiplier: 2 },
      ],
    });
    expect(planCheckin(input(config, [], noon("2026-11-01")))).toMatchObject({ ok: true, slot: { spec: "coins:30", rewardCode: "coins:10" } });
    expect(planCheckin(input(config, [], noon("2026-11-02")))).toMatchObject({ ok: true, slot: { spec: "giros-10", rewardCode: "giros-10" } });
  });

  describe("missed days only decide the streak", () => {
    it("restart: a missed day breaks the streak", () => {
      const state = checkinState(input(checkin({ missedDay: "restart" }), november(1, 2, 4), noon("2026-11-05")));
      expect(state.streak).toBe(1);
      expect(state.forgivenessUsed).toBe(0);
    });

    it("continue: the streak still counts only consecutive days", () => {
      expect(checkinState(input(checkin({ missedDay: "continue" }), november(1, 2, 4), noon("2026-11-05"))).streak).toBe(1);
    });

    it("forgive_one: the first missed day of the month keeps the streak alive without adding to it", () => {
      const state = checkinState(input(checkin({ missedDay: "forgive_one" }), november(1, 2, 4), noon("2026-11-05")));
      expect(state.streak).toBe(3);
      expect(state.forgivenessUsed).toBe(1);
      expect(state.days[2]).toBe("missed");
    });

    it("forgive_one: the second missed day of the month restarts", () => {
      const state = checkinState(input(checkin({ missedDay: "forgive_one" }), november(1, 2, 4, 6), noon("2026-11-07")));
      expect(state.streak).toBe(1);
      expect(state.forgivenessUsed).toBe(1);
    });

    it("forgive_one: a new month starts with forgiveness unused", () => {
      const claims = ["2026-10-28", "2026-10-30", "2026-10-31", "2026-11-02"];
      const state = checkinState(input(checkin({ missedDay: "forgive_one" }), claims, noon("2026-11-03")));
      // 10-29 was forgiven in October, 11-01 in November: the streak lives on.
      expect(state.streak).toBe(4);
      expect(state.forgivenessUsed).toBe(1);
    });

    it("days before the first check-in are missed but never use the forgiveness", () => {
      const state = checkinState(input(checkin({ missedDay: "forgive_one" }), november(10), noon("2026-11-11")));
      expect(state.days.slice(0, 11)).toEqual([...Array(9).fill("missed"), "claimed", "available"]);
      expect(state.forgivenessUsed).toBe(0);
      expect(state.streak).toBe(1);
    });

    it("an unclaimed today is not missed yet: the streak counts up to yesterday", () => {
      expect(checkinState(input(checkin(), november(3, 4), noon("2026-11-05"))).streak).toBe(2);
    });
  });
});

describe("streak calendar", () => {
  const week = (missedDay: CheckinConfig["missedDay"] = "restart") => checkin({ period: "streak", days: 7, missedDay });

  it("before any check-in shows the coming run with today as slot 0", () => {
    const state = checkinState(input(week(), [], noon("2026-11-05")));
    expect(state).toMatchObject({ period: "streak", daysInPeriod: 7, todayIndex: 0, currentDayIndex: 0, streak: 0 });
    expect(state.days).toEqual(["available", "locked", "locked", "locked", "locked", "locked", "locked"]);
    expect(planCheckin(input(week(), [], noon("2026-11-05")))).toMatchObject({ ok: true, slot: { dayIndex: 0, periodKey: "2026-11-05" } });
  });

  it("advances one slot per day from the run's first check-in", () => {
    const state = checkinState(input(week(), november(5, 6, 7), noon("2026-11-08")));
    expect(state).toMatchObject({ todayIndex: 3, streak: 3 });
    expect(state.days).toEqual(["claimed", "claimed", "claimed", "available", "locked", "locked", "locked"]);
    expect(planCheckin(input(week(), november(5, 6, 7), noon("2026-11-08")))).toMatchObject({ ok: true, slot: { dayIndex: 3, periodKey: "2026-11-05" } });
  });

  it("filling the last slot points past the run; the next day starts a new run at slot 0", () => {
    const claims = november(5, 6, 7, 8, 9, 10, 11);
    expect(checkinState(input(week(), claims, noon("2026-11-11")))).toMatchObject({ todayIndex: 6, currentDayIndex: 7, streak: 7 });
    const next = checkinState(input(week(), claims, noon("2026-11-12")));
    expect(next).toMatchObject({ todayIndex: 0, currentDayIndex: 0, streak: 7 });
    expect(planCheckin(input(week(), claims, noon("2026-11-12")))).toMatchObject({ ok: true, slot: { dayIndex: 0, periodKey: "2026-11-12" } });
  });

  it("restart: a missed day ends the run, so the calendar starts again at day 1", () => {
    const state = checkinState(input(week("restart"), november(5, 6), noon("2026-11-08")));
    expect(state).toMatchObject({ todayIndex: 0, streak: 0, forgivenessUsed: 0 });
    expect(state.days[0]).toBe("available");
  });

  it("continue: the missed slot is lost, the run goes on and the streak restarts", () => {
    const state = checkinState(input(week("continue"), november(5, 6, 8), noon("2026-11-09")));
    expect(state).toMatchObject({ todayIndex: 4, streak: 1 });
    expect(state.days.slice(0, 5)).toEqual(["claimed", "claimed", "missed", "claimed", "available"]);
  });

  it("forgive_one: the first miss of the run is forgiven, the second ends it", () => {
    const forgiven = checkinState(input(week("forgive_one"), november(5, 6, 8), noon("2026-11-09")));
    expect(forgiven).toMatchObject({ todayIndex: 4, streak: 3, forgivenessUsed: 1 });
    expect(forgiven.days.slice(0, 5)).toEqual(["claimed", "claimed", "missed", "claimed", "available"]);
    const ended = checkinState(input(week("forgive_one"), november(5, 6, 8), noon("2026-11-10")));
    expect(ended).toMatchObject({ todayIndex: 0, streak: 0, forgivenessUsed: 0 });
  });

  it("forgive_one: each run starts with forgiveness unused", () => {
    // Run 1: 5..11 with 7th forgiven; run 2 starts on the 12th and forgives the 13th.
    const claims = november(5, 6, 8, 9, 10, 11, 12, 14);
    const state = checkinState(input(week("forgive_one"), claims, noon("2026-11-15")));
    expect(state).toMatchObject({ todayIndex: 3, forgivenessUsed: 1, streak: 8 });
  });

  it("a run that reached its last slot date without it being claimed ends", () => {
    const state = checkinState(input(week("continue"), november(5), noon("2026-11-12")));
    expect(state.todayIndex).toBe(0);
  });

  it.each([7, 31] as const)("`days` %i sets the run length", (days) => {
    expect(checkinState(input(checkin({ period: "streak", days }), [], noon("2026-11-05"))).daysInPeriod).toBe(days);
  });
});

describe("claim refusals", () => {
  it("checkin_disabled when the calendar is disabled; today is locked", () => {
    const config = checkin({ enabled: false });
    expect(planCheckin(input(config, [], noon("2026-11-05")))).toEqual({ ok: false, reason: "checkin_disabled" });
    const state = checkinState(input(config, [], noon("2026-11-05")));
    expect(state.canClaim).toBe(false);
    expect(state.days[4]).toBe("locked");
  });

  it("checkin_disabled for a club without a check-in section", () => {
    expect(planCheckin(input(NO_CHECKIN, [], noon("2026-11-05")))).toEqual({ ok: false, reason: "checkin_disabled" });
  });

  it("event_required until the required event was seen today", () => {
    const config = checkin({ requireEvent: "deposit.confirmed" });
    const waiting = checkinState(input(config, [], noon("2026-11-05"), false));
    expect(waiting.canClaim).toBe(false);
    expect(waiting.days[4]).toBe("locked");
    expect(planCheckin(input(config, [], noon("2026-11-05"), false))).toEqual({ ok: false, reason: "event_required" });
    expect(planCheckin(input(config, [], noon("2026-11-05"), true))).toMatchObject({ ok: true });
  });

  it("already_claimed comes before event_required", () => {
    const config = checkin({ requireEvent: "deposit.confirmed" });
    expect(planCheckin(input(config, november(5), noon("2026-11-05"), false))).toEqual({ ok: false, reason: "already_claimed" });
  });
});

describe("reward specs", () => {
  it.each([
    ["coins:10", 2, "coins:20"],
    ["xp:10.5", 1.5, "xp:15.75"],
    ["cashback:0.1", 3, "cashback:0.3"],
    ["coins:7", 0.5, "coins:3.5"],
    ["coins:10", 1, "coins:10"],
    ["reward:giros-10", 5, "reward:giros-10"],
    ["giros-10", 5, "giros-10"],
  ])("%s × %d is %s", (spec, multiplier, expected) => {
    expect(multipliedSpec(spec, multiplier)).toBe(expected);
  });

  it.each([
    ["reward:giros-10", "giros-10"],
    ["giros-10", "giros-10"],
    ["coins:50", "coins:50"],
  ])("%s is reported as %s", (reference, code) => {
    expect(referenceCode(reference)).toBe(code);
  });

  it("lays the multiplier over a granted reward's delivery payload", () => {
    const evaluation = grantRewards({
      config: casinoEngineConfig(),
      state: blankState(),
      now: noon("2026-11-05"),
      timeZone: SAO_PAULO,
      specs: ["giros-10"],
      ruleId: "checkin:2026-11-05",
    });
    const overlaid = overlayRewardPayloads(evaluation, { multiplier: 2 });
    expect(overlaid.delta.rewards[0].payload).toEqual({ kind: "free_spins", spins: 10, game: "Gates of Olympus", multiplier: 2 });
    expect(evaluation.delta.rewards[0].payload).not.toHaveProperty("multiplier");
  });
});
