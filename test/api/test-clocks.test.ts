// Test clocks through HTTP on both databases: a month's advance expires lots
// and runs the monthly tier review of the test environment only, events
// follow the clock, live keys get 404, and going back to real time is refused
// once events were recorded in the simulated future. The review's
// `tier.changed` reaches a real local receiver, and webhook retries fall due
// on the test clock (the next advance sends them), not in real time.
import { afterAll, beforeAll, expect, it } from "vitest";
import { OutboxMessage, Participant, TierReview, TournamentSettlement, WebhookEndpoint, WebhookSending } from "../../server/src/db/entities/index.js";
import { newId } from "../../server/src/db/ids.js";
import { testClockAt } from "../../server/src/usecases/sandbox/test-clock.js";
import { WebhookDispatcher } from "../../server/src/webhooks/dispatch.js";
import { Receiver } from "../webhooks/support/receiver.js";
import { demoConfig, expectError, manualClock, type TestApi } from "../support/api.js";
import { openTestClub } from "../support/club.js";
import { describeEachDatabase } from "../support/databases.js";

const REAL_NOW = new Date("2026-11-18T12:00:00Z");
const MONTH_LATER = new Date("2026-12-18T12:00:00Z");

describeEachDatabase("API test clocks", (kind) => {
  let api: TestApi;
  const receiver = new Receiver("whsec_test_clock");
  const clock = manualClock(REAL_NOW);
  const live = (method: string, path: string, body?: unknown) => api.request(method, path, { key: api.keys.live, body });
  const coins = async (participant: string, key?: string) => {
    const progress = await api.request("GET", `/v1/participants/${participant}/progress`, key ? { key } : {});
    expect(progress.status).toBe(200);
    return progress.body.currencies.find((currency: any) => currency.code === "coins").balance;
  };

  beforeAll(async () => {
    api = await openTestClub(kind, { api: true, clock });
    await receiver.start();
    await api.db.em().insert(WebhookEndpoint, {
      id: newId("we"),
      clubId: api.clubId,
      env: "test",
      url: receiver.url(),
      events: ["tier.changed"],
      description: null,
      enabled: true,
      secret: "whsec_test_clock",
      createdAt: REAL_NOW,
      updatedAt: REAL_NOW,
      deletedAt: null,
    });
    const config = await demoConfig();
    config.currencies.find((currency: any) => currency.code === "coins").expiresInDays = 10;
    config.progression.demotion = "monthly_review";
    for (const request of [api.request, live]) {
      const call = request === live ? live : (method: string, path: string, body?: unknown) => api.request(method, path, { body });
      expect((await call("PUT", "/v1/config/draft", config)).status).toBe(200);
      expect((await call("POST", "/v1/config/publish")).status).toBe(200);
    }
  });
  afterAll(async () => {
    await receiver.stop();
    await api?.close();
  });

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
    // A participant whose tier changes at the review: Diamante by hand (as after a level lost), though their peak since last month is a Bronze level.
    expect((await api.request("POST", "/v1/events", { body: { participant: "relogio_2", type: "user.signed_up" } })).status).toBe(200);
    await api.db.em().nativeUpdate(Participant, { clubId: api.clubId, env: "test", externalId: "relogio_2" }, { tierCode: "diamante" });
    expect(granted).toBeGreaterThan(0);
    // A score in the demo's weekly slots tournament, whose edition ends on 2026-11-23.
    const bet = { participant: "relogio_1", type: "bet.placed", amount: 10, meta: { game_type: "video-slots" } };
    expect((await api.request("POST", "/v1/events", { body: bet })).status).toBe(200);

    const advanced = await api.request("POST", "/v1/test_clock/advance", { body: { to: MONTH_LATER.toISOString() } });
    expect(advanced.status).toBe(200);
    expect(advanced.body).toMatchObject({ from: REAL_NOW.toISOString(), to: MONTH_LATER.toISOString(), steps: 30 });
    expect(advanced.body.tasks).toEqual(
      expect.arrayContaining([
        { name: "currency lot expiry", runs: 30 },
        { name: "monthly tier review", runs: 30 },
      ]),
    );
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

    // The review's tier.changed, relayed to the webhook consumer as a worker does; the receiver refuses the first attempt.
    const outbox = await api.db.em().fork().find(OutboxMessage, { clubId: api.clubId, kind: "webhook" });
    const changed = outbox.filter((row) => row.payload.type === "tier.changed");
    expect(changed.map((row) => [row.env, (row.payload.data as any).participant.external_id])).toEqual([["test", "relogio_2"]]);
    const dispatcher = new WebhookDispatcher({ db: api.db, clockFor: (scope) => testClockAt(api.db, scope.clubId) });
    receiver.replyWith({ status: 503 });
    await dispatcher.handleOutboxMessage(
      { id: changed[0].id, clubId: api.clubId, env: "test", payload: changed[0].payload },
      { id: changed[0].id, attempt: 1 },
    );
    expect(receiver.requests).toHaveLength(1);
    // The retry is due a minute after the attempt on the test clock, so real time never makes it due; advancing does.
    const [sending] = await api.db.em().fork().find(WebhookSending, { clubId: api.clubId, eventType: "tier.changed" });
    expect(sending.nextAttemptAt?.toISOString()).toBe(new Date(MONTH_LATER.getTime() + 60_000).toISOString());
    expect(await dispatcher.runDue()).toBe(0);
    const retried = await api.request("POST", "/v1/test_clock/advance", { body: { to: new Date(MONTH_LATER.getTime() + 120_000).toISOString() } });
    expect(retried.status).toBe(200);
    expect(retried.body.tasks).toContainEqual({ name: "webhook retries", runs: 1 });
    expect(receiver.requests).toHaveLength(2);
    const delivered = JSON.parse(receiver.requests[1].body);
    expect(delivered).toMatchObject({
      type: "tier.changed",
      data: { participant: { external_id: "relogio_2" }, from: { code: "diamante" }, to: { code: "bronze" } },
    });
    expect(receiver.requests[1].signatureValid).toBe(true);
    expect((await api.db.em().fork().findOneOrFail(WebhookSending, { id: sending.id })).status).toBe("succeeded");
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
