// Webhook retries of a test environment that follows a test clock, through
// HTTP on both databases: one advance step retries every due sending (no batch
// left behind for a later advance), and a frozen clock sees no retry in real
// time, however much real time passes (a controllable real-time source stands
// in for waiting minutes).
import { afterAll, beforeAll, expect, it } from "vitest";
import { WebhookEndpoint, WebhookSending } from "../../server/src/db/entities/index.js";
import { newId } from "../../server/src/db/ids.js";
import { testClockAt } from "../../server/src/usecases/sandbox/test-clock.js";
import { WebhookDispatcher } from "../../server/src/webhooks/dispatch.js";
import { Receiver } from "../webhooks/support/receiver.js";
import { manualClock, type TestApi } from "../support/api.js";
import { openTestClub } from "../support/club.js";
import { describeEachDatabase } from "../support/databases.js";

const REAL_NOW = new Date("2026-11-20T12:00:00Z");
const FAILED_SENDINGS = 250;

describeEachDatabase("test clock webhook retries", (kind) => {
  let api: TestApi;
  let endpointId: string;
  const receiver = new Receiver("whsec_clock_retries");
  const clock = manualClock(REAL_NOW);

  beforeAll(async () => {
    api = await openTestClub(kind, { api: true, clock });
    await receiver.start();
    endpointId = newId("we");
    await api.db.em().insert(WebhookEndpoint, {
      id: endpointId,
      clubId: api.clubId,
      env: "test",
      url: receiver.url(),
      events: ["*"],
      description: null,
      enabled: true,
      secret: "whsec_clock_retries",
      createdAt: REAL_NOW,
      updatedAt: REAL_NOW,
      deletedAt: null,
    });
  });
  afterAll(async () => {
    await receiver.stop();
    await api?.close();
  });

  /** `count` sendings whose first attempt failed, their retry due `dueAt` (as the dispatcher records a failed attempt). */
  const failedSendings = async (count: number, dueAt: Date, eventPrefix: string) => {
    const rows = Array.from({ length: count }, (_, i) => ({
      id: newId("whd"),
      clubId: api.clubId,
      env: "test" as const,
      endpointId,
      eventId: `${eventPrefix}_${i}`,
      eventType: "level.up",
      body: JSON.stringify({ id: `${eventPrefix}_${i}`, type: "level.up", data: {} }),
      status: "pending" as const,
      attempts: 1,
      lastError: "HTTP 503",
      lastStatusCode: 503,
      nextAttemptAt: dueAt,
      createdAt: REAL_NOW,
      updatedAt: REAL_NOW,
    }));
    await api.db.em().insertMany(WebhookSending, rows);
    return rows.map((row) => row.id);
  };

  it(`retries all ${FAILED_SENDINGS} due sendings in one advance step`, async () => {
    const start = await api.request("POST", "/v1/test_clock/advance", { body: { to: new Date(REAL_NOW.getTime() + 1_000).toISOString() } });
    expect(start.status).toBe(200);
    const clockAt = new Date(start.body.to);
    const ids = await failedSendings(FAILED_SENDINGS, new Date(clockAt.getTime() + 60_000), "evt_many");
    const before = receiver.requests.length;
    // Two minutes: one step (steps are at most a club day).
    const advanced = await api.request("POST", "/v1/test_clock/advance", { body: { to: new Date(clockAt.getTime() + 120_000).toISOString() } });
    expect(advanced.status).toBe(200);
    expect(advanced.body.steps).toBe(1);
    expect(receiver.requests.length - before).toBe(FAILED_SENDINGS);
    const rows = await api.db
      .em()
      .fork()
      .find(WebhookSending, { id: { $in: ids } });
    expect(rows.filter((row) => row.status === "succeeded")).toHaveLength(FAILED_SENDINGS);
    expect(new Set(receiver.requests.slice(before).map((request) => JSON.parse(request.body).id)).size).toBe(FAILED_SENDINGS);
  });

  it("sees no retry in real time while the clock stands still, then the advance sends it", async () => {
    const clockAt = (await testClockAt(api.db, api.clubId))!;
    const [id] = await failedSendings(1, new Date(clockAt.getTime() + 60_000), "evt_frozen");
    let realNow = new Date(clockAt.getTime() + 1_000);
    // A worker's dispatcher on a real-time source the test moves: 70 s, then an hour, of real time pass.
    const realTime = new WebhookDispatcher({ db: api.db, now: () => realNow, clockFor: (scope) => testClockAt(api.db, scope.clubId) });
    const before = receiver.requests.length;
    for (const later of [70_000, 3_600_000]) {
      realNow = new Date(clockAt.getTime() + later);
      expect(await realTime.runDue()).toBe(0);
    }
    expect(receiver.requests.length).toBe(before);
    expect((await api.db.em().fork().findOneOrFail(WebhookSending, { id })).attempts).toBe(1);
    const advanced = await api.request("POST", "/v1/test_clock/advance", { body: { to: new Date(clockAt.getTime() + 61_000).toISOString() } });
    expect(advanced.status).toBe(200);
    expect(receiver.requests.length).toBe(before + 1);
    expect((await api.db.em().fork().findOneOrFail(WebhookSending, { id })).status).toBe("succeeded");
  });

  it("still retries the live environment of the same club in real time", async () => {
    const liveId = newId("we");
    await api.db.em().insert(WebhookEndpoint, {
      id: liveId,
      clubId: api.clubId,
      env: "live",
      url: receiver.url("/live"),
      events: ["*"],
      description: null,
      enabled: true,
      secret: "whsec_clock_retries",
      createdAt: REAL_NOW,
      updatedAt: REAL_NOW,
      deletedAt: null,
    });
    const realNow = new Date(REAL_NOW.getTime() + 3_600_000);
    await api.db.em().insert(WebhookSending, {
      id: newId("whd"),
      clubId: api.clubId,
      env: "live",
      endpointId: liveId,
      eventId: "evt_live",
      eventType: "level.up",
      body: JSON.stringify({ id: "evt_live", type: "level.up", data: {} }),
      status: "pending",
      attempts: 1,
      lastError: "HTTP 503",
      lastStatusCode: 503,
      nextAttemptAt: new Date(REAL_NOW.getTime() + 60_000),
      createdAt: REAL_NOW,
      updatedAt: REAL_NOW,
    });
    const realTime = new WebhookDispatcher({ db: api.db, now: () => realNow, allowPrivateAddresses: true });
    expect(await realTime.runDue()).toBe(1);
    expect(receiver.requests.at(-1)?.path).toBe("/live");
  });
});
