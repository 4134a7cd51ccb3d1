import { describe, expect, it } from "vitest";
import {
  cashbackState,
  claimableDays,
  clubDays,
  dayCashback,
  dueDays,
  netLoss,
  type BetTotals,
  type CashbackInput,
  type CashbackProgram,
} from "../../../server/src/engine/cashback.js";
import { SAO_PAULO } from "../fixtures.js";

/** Bronze 5% from R$ 50, Prata 10% from R$ 500, Ouro 15% from R$ 2 000; claimable for 7 days; paid at 10:00. */
function program(overrides: Partial<CashbackProgram> = {}): CashbackProgram {
  return {
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
    welcome: { enabled: false, pct: 0, max_minor: 0 },
    text: {},
    currency: "BRL",
    ...overrides,
  };
}

const lost = (staked: number, received = 0): BetTotals => ({ staked, received });

function input(overrides: Partial<CashbackInput> = {}): CashbackInput {
  return {
    program: program(),
    now: new Date("2026-11-21T15:00:00Z"), // 12:00 in São Paulo
    timeZone: SAO_PAULO,
    totals: {},
    firstDayKey: "2026-01-01",
    settledThrough: null,
    monthReceived: 0,
    ...overrides,
  };
}

describe("netLoss", () => {
  it("is staked minus received, never negative", () => {
    expect(netLoss(lost(10000, 2500))).toBe(7500);
    expect(netLoss(lost(10000, 15000))).toBe(0);
  });
});

describe("dayCashback", () => {
  it("pays nothing one cent below min_loss_minor and the base percentage at min_loss_minor", () => {
    expect(dayCashback(program(), 4999, false)).toEqual({ loss: 4999, pct: 0, amount: 0, band: null });
    expect(dayCashback(program(), 5000, false)).toEqual({ loss: 5000, pct: 5, amount: 250, band: "Bronze" });
  });

  it("pays the highest band the loss reaches, from its min_loss_minor on", () => {
    expect(dayCashback(program(), 49999, false)).toMatchObject({ pct: 5, band: "Bronze" });
    expect(dayCashback(program(), 50000, false)).toMatchObject({ pct: 10, amount: 5000, band: "Prata" });
    expect(dayCashback(program(), 250000, false)).toMatchObject({ pct: 15, amount: 37500, band: "Ouro" });
  });

  it("clamps a band's percentage to min_pct..max_pct", () => {
    const clamped = program({
      min_pct: 6,
      max_pct: 12,
      tiers: [
        { name: "Baixa", min_loss_minor: 0, pct: 2 },
        { name: "Alta", min_loss_minor: 100000, pct: 40 },
      ],
    });
    expect(dayCashback(clamped, 10000, false)).toMatchObject({ pct: 6, band: "Baixa" });
    expect(dayCashback(clamped, 100000, false)).toMatchObject({ pct: 12, band: "Alta" });
  });

  it("pays min_pct to a loss that reaches no band", () => {
    expect(dayCashback(program({ min_loss_minor: 1000 }), 3000, false)).toEqual({ loss: 3000, pct: 5, amount: 150, band: null });
  });

  it("applies a decimal percentage exactly and truncates to whole cents", () => {
    expect(dayCashback(program({ min_loss_minor: 0, min_pct: 7.5, tiers: [] }), 1001, false).amount).toBe(75); // 75.075
    expect(dayCashback(program({ min_loss_minor: 0, min_pct: 0.1, tiers: [] }), 30000, false).amount).toBe(30);
  });

  it("pays the welcome percentage on the first day, up to welcome.max", () => {
    const welcome = program({ welcome: { enabled: true, pct: 20, max_minor: 10000 } });
    expect(dayCashback(welcome, 40000, true)).toEqual({ loss: 40000, pct: 20, amount: 8000, band: null });
    expect(dayCashback(welcome, 60000, true)).toMatchObject({ amount: 10000 });
    expect(dayCashback(welcome, 60000, false)).toMatchObject({ pct: 10, amount: 6000 });
    expect(dayCashback(program(), 60000, true)).toMatchObject({ pct: 10 });
  });

  it("pays nothing while the program is disabled", () => {
    expect(dayCashback(program({ enabled: false }), 60000, false).amount).toBe(0);
  });
});

describe("clubDays", () => {
  it("lists today and the days before it, midnight to midnight in the club zone", () => {
    expect(clubDays(new Date("2026-11-21T15:00:00Z"), SAO_PAULO, 2)).toEqual([
      { dayKey: "2026-11-19", start: new Date("2026-11-19T03:00:00Z"), end: new Date("2026-11-20T03:00:00Z") },
      { dayKey: "2026-11-20", start: new Date("2026-11-20T03:00:00Z"), end: new Date("2026-11-21T03:00:00Z") },
      { dayKey: "2026-11-21", start: new Date("2026-11-21T03:00:00Z"), end: new Date("2026-11-22T03:00:00Z") },
    ]);
  });

  it("follows daylight saving changes (a 23-hour and a 25-hour day in New York)", () => {
    const spring = clubDays(new Date("2026-03-09T17:00:00Z"), "America/New_York", 1)[0];
    expect(spring).toEqual({ dayKey: "2026-03-08", start: new Date("2026-03-08T05:00:00Z"), end: new Date("2026-03-09T04:00:00Z") });
    const autumn = clubDays(new Date("2026-11-02T17:00:00Z"), "America/New_York", 1)[0];
    expect(autumn).toEqual({ dayKey: "2026-11-01", start: new Date("2026-11-01T04:00:00Z"), end: new Date("2026-11-02T05:00:00Z") });
  });

  it("starts days at a reset hour when given one", () => {
    expect(clubDays(new Date("2026-11-21T08:59:59Z"), SAO_PAULO, 0, 6)).toEqual([
      { dayKey: "2026-11-20", start: new Date("2026-11-20T09:00:00Z"), end: new Date("2026-11-21T09:00:00Z") },
    ]);
  });
});

describe("claimableDays", () => {
  it("lists finished, unpaid days with cashback, oldest first, never today", () => {
    const days = claimableDays(input({ totals: { "2026-11-19": lost(10000), "2026-11-20": lost(60000, 10000), "2026-11-21": lost(90000) } }));
    expect(days).toEqual([
      { dayKey: "2026-11-19", amount: 500, pct: 5, loss: 10000 },
      { dayKey: "2026-11-20", amount: 5000, pct: 10, loss: 50000 },
    ]);
  });

  it("leaves out days already settled and days without cashback", () => {
    const totals = { "2026-11-18": lost(10000), "2026-11-19": lost(1000), "2026-11-20": lost(20000) };
    expect(claimableDays(input({ totals, settledThrough: "2026-11-18" })).map((day) => day.dayKey)).toEqual(["2026-11-20"]);
  });

  it.each([1, 30])("keeps a day exactly claim_days (%i) old and drops the one before", (claimDays) => {
    const oldest = clubDays(new Date("2026-11-21T15:00:00Z"), SAO_PAULO, claimDays)[0].dayKey;
    const tooOld = clubDays(new Date("2026-11-21T15:00:00Z"), SAO_PAULO, claimDays + 1)[0].dayKey;
    const days = claimableDays(input({ program: program({ claim_days: claimDays }), totals: { [oldest]: lost(10000), [tooOld]: lost(10000) } }));
    expect(days.map((day) => day.dayKey)).toEqual([oldest]);
  });

  it("pays the welcome percentage on the participant's first day", () => {
    const welcome = program({ welcome: { enabled: true, pct: 20, max_minor: 10000 } });
    const days = claimableDays(input({ program: welcome, firstDayKey: "2026-11-20", totals: { "2026-11-20": lost(10000) } }));
    expect(days).toEqual([{ dayKey: "2026-11-20", amount: 2000, pct: 20, loss: 10000 }]);
  });

  it("is empty in auto mode", () => {
    expect(claimableDays(input({ program: program({ mode: "auto" }), totals: { "2026-11-20": lost(10000) } }))).toEqual([]);
  });
});

describe("dueDays", () => {
  const auto = (hour: number) => program({ mode: "auto", hour });
  const totals = { "2026-11-19": lost(10000), "2026-11-20": lost(20000) };

  it("pays yesterday from `hour` on, club time", () => {
    const before = dueDays(input({ program: auto(10), totals, settledThrough: "2026-11-19", now: new Date("2026-11-21T12:59:59Z") }));
    expect(before).toEqual([]);
    const at = dueDays(input({ program: auto(10), totals, settledThrough: "2026-11-19", now: new Date("2026-11-21T13:00:00Z") }));
    expect(at).toEqual([{ dayKey: "2026-11-20", amount: 1000, pct: 5, loss: 20000 }]);
  });

  it.each([
    [0, "2026-11-21T02:59:59Z", "2026-11-21T03:00:00Z"],
    [23, "2026-11-22T01:59:59Z", "2026-11-22T02:00:00Z"],
  ])("hour %i (the bounds) is when the previous day becomes due", (hour, justBefore, at) => {
    const day = "2026-11-20";
    const data = { [day]: lost(20000) };
    expect(dueDays(input({ program: auto(hour), totals: data, now: new Date(justBefore) }))).toEqual([]);
    expect(dueDays(input({ program: auto(hour), totals: data, now: new Date(at) })).map((due) => due.dayKey)).toEqual([day]);
  });

  it("catches up on unpaid days within claim_days", () => {
    const due = dueDays(input({ program: auto(10), totals, now: new Date("2026-11-21T13:00:00Z") }));
    expect(due.map((day) => day.dayKey)).toEqual(["2026-11-19", "2026-11-20"]);
  });

  it("is empty in claim mode and while disabled", () => {
    expect(dueDays(input({ totals, now: new Date("2026-11-21T13:00:00Z") }))).toEqual([]);
    expect(dueDays(input({ program: program({ mode: "auto", enabled: false }), totals, now: new Date("2026-11-21T13:00:00Z") }))).toEqual([]);
  });
});

describe("cashbackState", () => {
  it("shows today's loss with its band, the days to claim and the program's range", () => {
    const state = cashbackState(
      input({
        totals: { "2026-11-19": lost(10000), "2026-11-20": lost(15000), "2026-11-21": lost(60000, 8000) },
        monthReceived: 3200,
      }),
    );
    expect(state).toEqual({
      enabled: true,
      mode: "claim",
      available: 12.5,
      availableDays: [
        { dayKey: "2026-11-19", amount: 5, pct: 5, loss: 100 },
        { dayKey: "2026-11-20", amount: 7.5, pct: 5, loss: 150 },
      ],
      today: { amount: 52, loss: 520, pct: 10, band: "Prata" },
      pctRange: { min: 5, max: 15 },
      nextDayAt: "2026-11-22T03:00:00.000Z",
      autoHour: 10,
      claimDays: 7,
      monthReceived: 32,
    });
  });

  it("shows nothing to claim in auto mode", () => {
    const state = cashbackState(input({ program: program({ mode: "auto" }), totals: { "2026-11-20": lost(15000) } }));
    expect(state).toMatchObject({ mode: "auto", available: 0, availableDays: [] });
  });
});
