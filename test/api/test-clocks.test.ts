// Test clocks through HTTP on both databases: a month's advance expires lots
// and runs the monthly tier review of the test environment only, events
// follow the clock, live keys get 404, and going back to real time is refused
// once events were recorded in the simulated future.
import { afterAll, beforeAll, expect, it } from "vitest";
import { TierReview, TournamentSettlement } from "../../server/src/db/entities/index.js";
import { demoConfig, expectError, manualClock, startApi, type TestApi } from "../support/api.js";
import { describeEachDatabase } from "../support/databases.js";

const REAL_NOW = new Date("2026-11-18T12:00:00Z");
const MONTH_LATER = new Date("2026-12-18T12:00:00Z");

describeEachDatabase("API test clocks", (kind) => {
  let api: TestApi;
  const clock = manualClock(REAL_NOW);
  const live = (method: string, path: string, body?: unknown) => api.request(method, path, { key: api.keys.live, body });
  const coins = async (participant: string, key?: string) => {
    const progress = await api.request("GET", `/v1/participants/${participant}/progress`, key ? { key } : {});
    expect(progress.status).toBe(200);
    return progress.body.currencies.find((currency: any) => currency.code === "coins").balance_minor;
  };

  beforeAll(async () => {
    api = await startApi(kind, { clock });
    const config = await demoConfig();
    config.currencies.find((currency: any) => currency.code === "coins").expiresInDays = 10;
    config.progression.demotion = "monthly_review";
    for (const request of [api.request, live]) {
      const call = request === live ? live : (method: string, path: string, body?: unknown) => api.request(method, path, { body });
      expect((await call("PUT", "/v1/config/draft", config)).status).toBe(200);
      expect((await call("POST", "/v1/config/publish")).status).toBe(200);
    }
  });
  afterAll(() => api?.close());

  it("is real time until set, and does not exist for live keys", async () => {
    expect((await api.request("GET", "/v1/test_clock")).body).toEqual({ now: REAL_NOW.toISOString(), frozen: false });
    expectError(await live("GET", "/v1/test_clock"), 404, "not_found");
    expectError(await live("POST", "/v1/test_clock/advance", { to: MONTH_LATER.toISOString() }), 404, "not_found");
    expectError(await live("DELETE", "/v1/test_clock"), 404, "not_found");
  });

  it("advancing a month expires lots and reviews tiers in the test environment only; events follow the clock", async () => {
    for (const request of [api.request, live]) {
      const call = request === live ? live : (method: string, path: string, body?: unknown) => api.request(method, path, { body });
      expect((await call("POST", "/v1/events", { participant: "relogio_1", type: "user.signed_up" })).status).toBe(200);
    }
    const granted = await coins("relogio_1");
    expect(granted).toBeGreaterThan(0);
    // A score in the demo's weekly slots tournament, whose edition ends on 2026-11-23.
    const bet = { participant: "relogio_1", type: "bet.placed", amount: 10, meta: { game_type: "video-slots" } };
    expect((await api.request("POST", "/v1/events", { body: bet })).status).toBe(200);

    const advanced = await api.request("POST", "/v1/test_clock/advance", { body: { to: MONTH_LATER.toISOString() } });
    expect(advanced.status).toBe(200);
    expect(advanced.body).toMatchObject({ from: REAL_NOW.toISOString(), to: MONTH_LATER.toISOString(), steps: 30 });
    expect(advanced.body.tasks).toEqual(expect.arrayContaining([{ name: "currency lot expiry", runs: 30 }, { name: "monthly tier review", runs: 30 }]));
    expect((await api.request("GET", "/v1/test_clock")).body).toEqual({ now: MONTH_LATER.toISOString(), frozen: true });

    // The lot expired 10 days in; the live participant's did not.
    expect(await coins("relogio_1")).toBe(0);
    expect(await coins("relogio_1", api.keys.live)).toBe(granted);
    const reviews = await api.db.em().fork().find(TierReview, { clubId: api.clubId });
    // Claimed for the month the clock entered (2026-11 is only noted: the club switched to monthly review mid-month).
    expect(reviews.map((review) => review.env)).not.toContain("live");
    expect(reviews.map((review) => review.monthKey)).toContain("2026-12");

    // The tournament edition that ended during the month was settled and paid, in the test environment only.
    const settlements = await api.db.em().fork().find(TournamentSettlement, { clubId: api.clubId });
    expect(settlements.length).toBeGreaterThan(0);
    expect(settlements.every((settlement) => settlement.env === "test")).toBe(true);
    const rewards = await api.request("GET", "/v1/me/rewards", { participant: "relogio_1" });
    expect(rewards.body.data.map((reward: any) => reward.reward_code)).toContain("bonus-20");

    // Events of the test environment happen at the clock's time.
    const event = await api.request("POST", "/v1/events", { body: { participant: "relogio_1", type: "bet.placed", amount: 5 } });
    expect(event.status).toBe(200);
    const log = await api.request("GET", "/v1/events?participant=relogio_1&type=bet.placed");
    expect(log.body.data[0].id).toBe(event.body.event_id);
    expect(log.body.data[0].received_at).toBe(MONTH_LATER.toISOString());
  });

  it("moves forward only, at most a year at a time, and refuses real time once events are in the simulated future", async () => {
    expectError(await api.request("POST", "/v1/test_clock/advance", { body: { to: REAL_NOW.toISOString() } }), 422, "validation_failed", "body.to");
    expectError(await api.request("POST", "/v1/test_clock/advance", { body: { to: "2027-12-19T12:00:00Z" } }), 422, "validation_failed", "body.to");
    expectError(await api.request("DELETE", "/v1/test_clock"), 409, "test_clock_in_use");

    const other = await api.createOtherClub();
    const call = (method: string, path: string, body?: unknown) => api.request(method, path, { key: other.keys.test, body });
    expect((await call("POST", "/v1/test_clock/advance", { to: "2026-11-19T12:00:00Z" })).status).toBe(200);
    expect((await call("DELETE", "/v1/test_clock")).body).toEqual({ now: REAL_NOW.toISOString(), frozen: false });
  });
});
