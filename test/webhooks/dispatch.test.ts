import { afterAll, afterEach, beforeAll, beforeEach, expect, it } from "vitest";
import { StaffWarning, WebhookEndpoint, WebhookSending } from "../../server/src/db/entities/index.js";
import { newId } from "../../server/src/db/ids.js";
import type { Database } from "../../server/src/db/orm.js";
import type { Scope } from "../../server/src/db/scope.js";
import type { RelayedMessage } from "../../server/src/jobs/outbox.js";
import { ApiError } from "../../server/src/usecases/shared/errors.js";
import { resendSending, WebhookDispatcher } from "../../server/src/webhooks/dispatch.js";
import { buildEnvelope } from "../../server/src/webhooks/envelope.js";
import { REFUSED_MESSAGE } from "../../server/src/webhooks/sender.js";
import { describeEachDatabase, openTestDatabase } from "../support/databases.js";
import { Receiver } from "./support/receiver.js";
import { waitFor } from "../jobs/support/wait.js";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const secret = "whsec_dispatch_test_secret";
const scope: Scope = { clubId: "club_cassino", env: "live" };

describeEachDatabase("webhook dispatch", (kind) => {
  let db: Database;
  let closeDb: () => Promise<void>;
  let clock: Date;
  const now = () => clock;
  // The receiver checks signatures against the same controllable clock, as a client with a synchronised clock would.
  const receiver = new Receiver(secret, now);
  let dispatcher: WebhookDispatcher;

  beforeAll(async () => {
    ({ db, close: closeDb } = await openTestDatabase(kind));
    await receiver.start();
  });
  afterAll(async () => {
    await receiver.stop();
    await closeDb();
  });
  beforeEach(async () => {
    clock = new Date("2025-03-01T12:00:00.000Z");
    receiver.requests.length = 0;
    // The receiver listens on 127.0.0.1; these tests' live endpoints are allowed to (the refusal has its own test).
    dispatcher = new WebhookDispatcher({ db, now, allowPrivateAddresses: true });
    const em = db.em();
    await em.nativeDelete(WebhookSending, {});
    await em.nativeDelete(WebhookEndpoint, {});
    await em.nativeDelete(StaffWarning, {});
  });
  afterEach(() => dispatcher.stop());

  async function addEndpoint(fields: Partial<WebhookEndpoint> = {}): Promise<string> {
    const id = newId("we");
    await db.em().insert(WebhookEndpoint, {
      id,
      ...scope,
      url: receiver.url(`/${id}`),
      events: [],
      description: null,
      enabled: true,
      secret,
      createdAt: clock,
      updatedAt: clock,
      deletedAt: null,
      ...fields,
    });
    return id;
  }

  function webhookMessage(type: string, data: Record<string, unknown>, at: Scope = scope): RelayedMessage & { eventId: string } {
    const eventId = newId("evt");
    return {
      eventId,
      id: newId("out"),
      ...at,
      payload: { id: eventId, type, created_at: clock.toISOString(), club_id: at.clubId, env: at.env, data },
    };
  }

  const sendings = () => db.em().find(WebhookSending, {}, { orderBy: { createdAt: "asc", id: "asc" } });
  const participant = { id: "par_1", external_id: "user_8412" };

  it("sends one signed request per enabled endpoint of the club and environment that subscribes to the event", async () => {
    const byDefault = await addEndpoint();
    await addEndpoint({ events: ["level.up"] });
    const rewards = await addEndpoint({ events: ["reward.*"] });
    await addEndpoint({ enabled: false });
    await addEndpoint({ deletedAt: clock });
    await addEndpoint({ env: "test" });
    await addEndpoint({ clubId: "club_other" });

    const message = webhookMessage("reward.granted", { participant, reward_code: "giros-gratis-20" });
    await dispatcher.handleOutboxMessage(message, { id: message.id, attempt: 1 });

    const rows = await sendings();
    expect(rows.map((row) => row.endpointId).sort()).toEqual([byDefault, rewards].sort());
    const expectedBody = buildEnvelope({
      id: message.eventId,
      type: "reward.granted",
      createdAt: clock,
      ...scope,
      data: { participant, reward_code: "giros-gratis-20" },
    });
    for (const row of rows) {
      expect(row).toMatchObject({ status: "succeeded", attempts: 1, lastStatusCode: 200, lastError: null, nextAttemptAt: null });
      expect(row.body).toBe(expectedBody);
      const request = receiver.requests.find((r) => r.path === `/${row.endpointId}`)!;
      expect(request.body).toBe(expectedBody);
      expect(request.signatureValid).toBe(true);
      expect(request.headers["x-clube-event"]).toBe("reward.granted");
      expect(request.headers["x-clube-delivery"]).toBe(row.id);
    }
    expect(receiver.requests).toHaveLength(2);
  });

  it("sends a participant notice only to endpoints that name it", async () => {
    await addEndpoint();
    const named = await addEndpoint({ events: ["level.up", "tier.changed"] });
    const message = webhookMessage("level.up", { participant, level: 3, from: 2 });
    await dispatcher.handleOutboxMessage(message, { id: message.id, attempt: 1 });
    expect((await sendings()).map((row) => row.endpointId)).toEqual([named]);
  });

  it("creates nothing twice when the same message is delivered again", async () => {
    await addEndpoint();
    const message = webhookMessage("referral.qualified", { referral_id: "rfl_1" });
    await dispatcher.handleOutboxMessage(message, { id: message.id, attempt: 1 });
    await dispatcher.handleOutboxMessage(message, { id: message.id, attempt: 2 });
    expect(await sendings()).toHaveLength(1);
    expect(receiver.requests).toHaveLength(1);
  });

  it("sends webhook.test only to the endpoint its data names, whatever that endpoint subscribes to", async () => {
    await addEndpoint();
    const checked = await addEndpoint({ events: ["level.up"] });
    const message = webhookMessage("webhook.test", { endpoint_id: checked, message: "Clube webhook test" });
    await dispatcher.handleOutboxMessage(message, { id: message.id, attempt: 1 });
    expect((await sendings()).map((row) => row.endpointId)).toEqual([checked]);
    expect(receiver.requests.map((r) => r.path)).toEqual([`/${checked}`]);
  });

  it("refuses a message that is not a webhook outbox message", async () => {
    await expect(dispatcher.handleOutboxMessage({ hello: "world" }, { id: "x", attempt: 1 })).rejects.toThrow("not an outbox message");
    const message = webhookMessage("level.up", {});
    (message.payload as Record<string, unknown>).created_at = "yesterday";
    await expect(dispatcher.handleOutboxMessage(message, { id: message.id, attempt: 1 })).rejects.toThrow("not a webhook event payload");
  });

  it("retries on the exact schedule, marks the sending failed after 9 attempts, warns staff once, and resends", async () => {
    await addEndpoint();
    receiver.replyWith(...Array.from({ length: 9 }, () => ({ status: 503 })));
    const start = clock.getTime();
    const message = webhookMessage("reward.delivery_requested", { participant });
    await dispatcher.handleOutboxMessage(message, { id: message.id, attempt: 1 });
    const [created] = await sendings();
    expect(created).toMatchObject({ status: "pending", attempts: 1, lastError: "HTTP 503", lastStatusCode: 503 });

    const delays = [1 * MINUTE, 5 * MINUTE, 30 * MINUTE, 2 * HOUR, 12 * HOUR, 24 * HOUR, 24 * HOUR, 24 * HOUR];
    let due = start;
    for (const [index, delay] of delays.entries()) {
      due += delay;
      expect((await sendings())[0].nextAttemptAt?.getTime()).toBe(due);
      clock = new Date(due - 1);
      expect(await dispatcher.runDue()).toBe(0);
      clock = new Date(due);
      expect(await dispatcher.runDue()).toBe(1);
      expect((await sendings())[0].attempts).toBe(index + 2);
    }

    const [failed] = await sendings();
    expect(failed).toMatchObject({ status: "failed", attempts: 9, nextAttemptAt: null, lastError: "HTTP 503" });
    expect(receiver.requests).toHaveLength(9);
    expect(receiver.requests.every((r) => r.signatureValid && r.body === created.body)).toBe(true);
    expect(new Set(receiver.requests.map((r) => r.headers["x-clube-delivery"]))).toEqual(new Set([created.id]));
    const warnings = await db.em().find(StaffWarning, {});
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toMatchObject({ ...scope, kind: "webhook_failed", subjectId: created.id });
    clock = new Date(due + 7 * 24 * HOUR);
    expect(await dispatcher.runDue()).toBe(0);

    const resent = await resendSending(db.em(), scope, created.id, clock);
    expect(resent).toMatchObject({ status: "pending", attempts: 0, nextAttemptAt: clock });
    await expect(resendSending(db.em(), scope, created.id, clock)).rejects.toMatchObject({ status: 409, code: "sending_pending" });
    expect(await dispatcher.runDue()).toBe(1);
    expect((await sendings())[0]).toMatchObject({ status: "succeeded", attempts: 1, lastStatusCode: 200, lastError: null });
    expect(receiver.requests).toHaveLength(10);
  });

  it("answers 404 when resending a sending of another club, environment or an unknown id", async () => {
    await addEndpoint();
    const message = webhookMessage("reward.granted", {});
    await dispatcher.handleOutboxMessage(message, { id: message.id, attempt: 1 });
    const [sending] = await sendings();
    for (const [otherScope, id] of [
      [{ clubId: "club_other", env: "live" }, sending.id],
      [{ clubId: scope.clubId, env: "test" }, sending.id],
      [scope, "whd_unknown"],
    ] as const) {
      const error = await resendSending(db.em(), otherScope, id, clock).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(ApiError);
      expect(error).toMatchObject({ status: 404, code: "not_found" });
    }
  });

  it("delivers once the receiver is back after being down", async () => {
    const down = new Receiver(secret, now);
    await down.start();
    const url = down.url("/hooks");
    const port = down.port;
    await down.stop();
    await addEndpoint({ url });
    const message = webhookMessage("message.requested", { channel: "email" });
    await dispatcher.handleOutboxMessage(message, { id: message.id, attempt: 1 });
    expect((await sendings())[0]).toMatchObject({ status: "pending", attempts: 1, lastError: expect.stringMatching(/\S/), lastStatusCode: null });

    const back = new Receiver(secret, now);
    await back.start(port);
    try {
      clock = new Date(clock.getTime() + MINUTE);
      expect(await dispatcher.runDue()).toBe(1);
      expect((await sendings())[0]).toMatchObject({ status: "succeeded", attempts: 2, lastError: null });
      expect(back.requests).toHaveLength(1);
      expect(back.requests[0].signatureValid).toBe(true);
    } finally {
      await back.stop();
    }
  });

  it("counts a receiver that does not answer in time as a failed attempt", async () => {
    await addEndpoint();
    receiver.replyWith({ hang: true });
    const impatient = new WebhookDispatcher({ db, now, timeoutMs: 200, allowPrivateAddresses: true });
    const message = webhookMessage("reward.granted", {});
    await impatient.handleOutboxMessage(message, { id: message.id, attempt: 1 });
    expect((await sendings())[0]).toMatchObject({ status: "pending", attempts: 1, lastError: "timeout after 0.2s", lastStatusCode: null });
  });

  it("leaves a sending in its first attempt to its handler when a test clock's advance looks for due retries", async () => {
    const clocked: Scope = { clubId: scope.clubId, env: "test" };
    await addEndpoint(clocked);
    // The receiver holds the first attempt until the test lets it end (a short send timeout could end it before the advance looks).
    receiver.replyWith({ hang: true });
    const handler = new WebhookDispatcher({ db, now, allowPrivateAddresses: true });
    const message = webhookMessage("reward.granted", {}, clocked);
    const first = handler.handleOutboxMessage(message, { id: message.id, attempt: 1 });
    await waitFor("the first attempt under way", () => receiver.requests.length === 1);
    // The advance's step is hours ahead of the real-time lease the handler holds.
    const testClock = new Date(clock.getTime() + 26 * HOUR);
    const advance = new WebhookDispatcher({ db, now, allowPrivateAddresses: true, clockFor: async () => testClock });
    expect(await advance.runDueFor(clocked, testClock)).toBe(0);
    receiver.answerHanging(503);
    await first;
    expect(receiver.requests).toHaveLength(1);
    // Once attempted (and failed), the retry is the advance's: due on the test clock.
    expect((await sendings())[0]).toMatchObject({ status: "pending", attempts: 1 });
    expect(await advance.runDueFor(clocked, new Date(testClock.getTime() + 26 * HOUR))).toBe(1);
    expect(receiver.requests).toHaveLength(2);
  });

  it("lets only one of two workers make a due attempt", async () => {
    await addEndpoint();
    receiver.replyWith({ status: 500 });
    const message = webhookMessage("reward.granted", {});
    await dispatcher.handleOutboxMessage(message, { id: message.id, attempt: 1 });
    clock = new Date(clock.getTime() + MINUTE);
    const other = new WebhookDispatcher({ db, now, allowPrivateAddresses: true });
    const made = await Promise.all([dispatcher.runDue(), other.runDue(), dispatcher.runDue(), other.runDue()]);
    expect(made.reduce((a, b) => a + b, 0)).toBe(1);
    expect(receiver.requests).toHaveLength(2);
  });

  it("refuses to send to a live endpoint that resolves to a private address, and counts it as a failed attempt", async () => {
    const strict = new WebhookDispatcher({ db, now });
    await addEndpoint();
    const message = webhookMessage("reward.granted", { participant });
    await strict.handleOutboxMessage(message, { id: message.id, attempt: 1 });
    const [row] = await sendings();
    expect(row).toMatchObject({ status: "pending", attempts: 1, lastStatusCode: null });
    expect(row.lastError).toBe(REFUSED_MESSAGE);
    expect(receiver.requests).toHaveLength(0);
  });

  it("stops a sending whose endpoint was disabled or deleted meanwhile", async () => {
    const disabled = await addEndpoint();
    const deleted = await addEndpoint();
    receiver.replyWith({ status: 500 }, { status: 500 });
    const message = webhookMessage("reward.granted", {});
    await dispatcher.handleOutboxMessage(message, { id: message.id, attempt: 1 });
    await db.em().nativeUpdate(WebhookEndpoint, { id: disabled }, { enabled: false });
    await db.em().nativeUpdate(WebhookEndpoint, { id: deleted }, { deletedAt: clock });
    clock = new Date(clock.getTime() + MINUTE);
    expect(await dispatcher.runDue()).toBe(0);
    const byEndpoint = new Map((await sendings()).map((row) => [row.endpointId, row]));
    expect(byEndpoint.get(disabled)).toMatchObject({ status: "failed", attempts: 1, lastError: "endpoint disabled" });
    expect(byEndpoint.get(deleted)).toMatchObject({ status: "failed", attempts: 1, lastError: "endpoint deleted" });
    expect(receiver.requests).toHaveLength(2);
  });
});
