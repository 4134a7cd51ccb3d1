// A sending's attempt log through HTTP on both databases: a real local
// receiver answers 500, then hangs past the timeout, then 200; the sending's
// detail lists the three attempts newest first with their statuses,
// durations and errors, and a resend's attempt goes on numbering, marked.
import { afterAll, beforeAll, expect, it } from "vitest";
import { WebhookEndpoint, WebhookSending } from "../../server/src/db/entities/index.js";
import { newId } from "../../server/src/db/ids.js";
import { WebhookDispatcher } from "../../server/src/webhooks/dispatch.js";
import { Receiver } from "../webhooks/support/receiver.js";
import { manualClock, type TestApi } from "../support/api.js";
import { openTestClub } from "../support/club.js";
import { expectResponse } from "../support/contract.js";
import { describeEachDatabase } from "../support/databases.js";

const START = new Date("2026-11-20T12:00:00.000Z");
const MINUTE = 60_000;
const SECRET = "whsec_attempt_log";
/** Short, so the hanging answer ends the second attempt quickly. */
const TIMEOUT_MS = 400;

describeEachDatabase("webhook attempt log", (kind) => {
  let api: TestApi;
  const clock = manualClock(START);
  const receiver = new Receiver(SECRET, () => clock.now());
  let dispatcher: WebhookDispatcher;
  let endpointId: string;

  beforeAll(async () => {
    api = await openTestClub(kind, { api: true, clock });
    await receiver.start();
    dispatcher = new WebhookDispatcher({ db: api.db, now: () => clock.now(), timeoutMs: TIMEOUT_MS });
    endpointId = newId("we");
    await api.db.em().insert(WebhookEndpoint, {
      id: endpointId,
      clubId: api.clubId,
      env: "test",
      url: receiver.url("/hooks"),
      events: ["level.up"],
      description: null,
      enabled: true,
      secret: SECRET,
      createdAt: START,
      updatedAt: START,
      deletedAt: null,
    });
  });
  afterAll(async () => {
    await dispatcher?.stop();
    await receiver.stop();
    await api?.close();
  });

  const detail = async (id: string) => {
    const response = await api.request("GET", `/v1/webhook_sendings/${id}`);
    expectResponse("WebhookSendings_get", String(response.status), response.body);
    expect(response.status).toBe(200);
    return response.body;
  };

  it("lists each attempt, newest first: status, duration and error; a resend's attempt goes on numbering", async () => {
    receiver.replyWith({ status: 500 }, { hang: true });
    const eventId = newId("evt");
    const message = {
      id: newId("out"),
      clubId: api.clubId,
      env: "test" as const,
      payload: { id: eventId, type: "level.up", created_at: START.toISOString(), club_id: api.clubId, env: "test", data: { level: 2 } },
    };
    await dispatcher.handleOutboxMessage(message, { id: message.id, attempt: 1 });
    const listed = await api.request("GET", `/v1/webhook_endpoints/${endpointId}/sendings`);
    expect(listed.body.data).toHaveLength(1);
    const id: string = listed.body.data[0].id;

    clock.set(new Date(START.getTime() + MINUTE));
    expect(await dispatcher.runDue()).toBe(1);
    clock.set(new Date(START.getTime() + 7 * MINUTE));
    expect(await dispatcher.runDue()).toBe(1);
    expect(receiver.requests).toHaveLength(3);

    const sending = await detail(id);
    expect(sending).toMatchObject({ status: "succeeded", attempts: 3, last_error: null, last_status_code: 200 });
    const log = sending.attempt_log;
    expect(log.map((a: { number: number }) => a.number)).toEqual([3, 2, 1]);
    expect(log.map((a: { outcome: string }) => a.outcome)).toEqual(["succeeded", "failed", "failed"]);
    expect(log.map((a: { http_status: number | null }) => a.http_status)).toEqual([200, null, 500]);
    expect(log.map((a: { error: string | null }) => a.error)).toEqual([null, `timeout after ${TIMEOUT_MS / 1000}s`, "HTTP 500"]);
    expect(log.map((a: { resend: boolean }) => a.resend)).toEqual([false, false, false]);
    expect(log.map((a: { started_at: string }) => a.started_at)).toEqual([
      new Date(START.getTime() + 7 * MINUTE).toISOString(),
      new Date(START.getTime() + MINUTE).toISOString(),
      START.toISOString(),
    ]);
    for (const attempt of log) expect(Number.isInteger(attempt.duration_ms) && attempt.duration_ms >= 0).toBe(true);
    // The hanging attempt lasted its timeout (a timer may fire a little early by the monotonic clock).
    expect(log[1].duration_ms).toBeGreaterThanOrEqual(TIMEOUT_MS - 50);

    const resent = await api.request("POST", `/v1/webhook_sendings/${id}/resend`);
    expect(resent.status).toBe(200);
    expect(resent.body).toMatchObject({ status: "pending", attempts: 0 });
    expect(await dispatcher.runDue()).toBe(1);
    const after = await detail(id);
    expect(after).toMatchObject({ status: "succeeded", attempts: 1 });
    expect(after.attempt_log.map((a: { number: number; resend: boolean }) => [a.number, a.resend])).toEqual([
      [4, true],
      [3, false],
      [2, false],
      [1, false],
    ]);
  });

  it("answers an empty log for a sending never attempted", async () => {
    const id = newId("whd");
    await api.db.em().insert(WebhookSending, {
      id,
      clubId: api.clubId,
      env: "test",
      endpointId,
      eventId: newId("evt"),
      eventType: "level.up",
      body: "{}",
      status: "pending",
      attempts: 0,
      lastError: null,
      lastStatusCode: null,
      nextAttemptAt: new Date(START.getTime() + 365 * 24 * 60 * MINUTE),
      createdAt: START,
      updatedAt: START,
    });
    expect((await detail(id)).attempt_log).toEqual([]);
  });
});
