import { afterAll, beforeAll, beforeEach, expect, it } from "vitest";
import { TestClock, WebhookAttempt, WebhookEndpoint, WebhookSending } from "../../server/src/db/entities/index.js";
import type { Database } from "../../server/src/db/orm.js";
import type { Scope } from "../../server/src/db/scope.js";
import { KEPT_ATTEMPTS, pruneAttemptLog } from "../../server/src/webhooks/attempt-log.js";
import { MAX_SCHEDULED_ATTEMPTS } from "../../server/src/webhooks/schedule.js";
import { openSendingStore, type SendingStore } from "../../server/src/webhooks/sending-store.js";
import { describeEachDatabase, openTestDatabase } from "../support/databases.js";

const T0 = new Date("2025-05-01T10:00:00.000Z");
const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000);
const live: Scope = { clubId: "club_send", env: "live" };
const test: Scope = { clubId: "club_send", env: "test" };
const clocked: Scope = { clubId: "club_clocked", env: "test" };
const clockedLive: Scope = { clubId: "club_clocked", env: "live" };

/** The same behaviour is required of every adapter of the sending store port (webhooks/sending-store.ts). */
describeEachDatabase("sending store contract", (kind) => {
  let db: Database;
  let close: () => Promise<void>;
  let store: SendingStore;

  beforeAll(async () => {
    ({ db, close } = await openTestDatabase(kind));
    store = openSendingStore(db);
  });
  afterAll(() => close());
  beforeEach(async () => {
    const em = db.em();
    await em.nativeDelete(WebhookSending, {});
    await em.nativeDelete(WebhookAttempt, {});
    await em.nativeDelete(WebhookEndpoint, {});
    await em.nativeDelete(TestClock, {});
  });

  async function addEndpoint(id: string, scope: Scope, fields: Partial<WebhookEndpoint> = {}): Promise<void> {
    await db.em().insert(WebhookEndpoint, {
      id,
      ...scope,
      url: `https://example.test/${id}`,
      events: [],
      description: null,
      enabled: true,
      secret: `whsec_${id}`,
      previousSecret: null,
      previousSecretExpiresAt: null,
      createdAt: T0,
      updatedAt: T0,
      deletedAt: null,
      ...fields,
    });
  }

  function sending(id: string, fields: Partial<WebhookSending> = {}): WebhookSending {
    return {
      id,
      ...live,
      endpointId: "we_1",
      eventId: `evt_${id}`,
      eventType: "level.up",
      body: `{"id":"evt_${id}","data":{"ünïcode":"ok"}}`,
      status: "pending",
      attempts: 0,
      lastError: null,
      lastStatusCode: null,
      nextAttemptAt: at(0),
      createdAt: T0,
      updatedAt: T0,
      ...fields,
    } as WebhookSending;
  }

  async function stored(id: string): Promise<WebhookSending> {
    return db.em().findOneOrFail(WebhookSending, { id }, { disableIdentityMap: true });
  }

  /** A sending's attempt log, oldest first. */
  async function logOf(sendingId: string): Promise<WebhookAttempt[]> {
    return db.em().find(WebhookAttempt, { sendingId }, { orderBy: { number: "asc" }, disableIdentityMap: true });
  }

  const timing = (seconds: number, durationMs = 12) => ({ startedAt: at(seconds), durationMs });

  it("reads the enabled, not deleted endpoints of the clubs asked for, in every environment, with what sending needs", async () => {
    await addEndpoint("we_live", live, { events: ["level.up", "reward.*"], previousSecret: "whsec_old", previousSecretExpiresAt: at(3600) });
    await addEndpoint("we_test", test);
    await addEndpoint("we_off", live, { enabled: false });
    await addEndpoint("we_gone", live, { deletedAt: T0 });
    await addEndpoint("we_other", { clubId: "club_other", env: "live" });
    const endpoints = await store.enabledEndpoints([live.clubId]);
    expect(endpoints.map((endpoint) => endpoint.id).sort()).toEqual(["we_live", "we_test"]);
    expect(endpoints.find((endpoint) => endpoint.id === "we_live")).toMatchObject({
      ...live,
      url: "https://example.test/we_live",
      events: ["level.up", "reward.*"],
      secret: "whsec_we_live",
      previousSecret: "whsec_old",
      previousSecretExpiresAt: at(3600),
    });
    expect(endpoints.find((endpoint) => endpoint.id === "we_test")).toMatchObject({ previousSecret: null, previousSecretExpiresAt: null });
    expect(await store.enabledEndpoints(["club_nobody"])).toEqual([]);
  });

  it("inserts new sendings and skips one whose endpoint already has that event, answering the ids inserted", async () => {
    expect(await store.insertNew([])).toEqual(new Set());
    expect(await store.insertNew([sending("whd_1"), sending("whd_2", { endpointId: "we_2" })])).toEqual(new Set(["whd_1", "whd_2"]));
    // The same (endpoint, event) again under a new id: a redelivered message creates nothing twice.
    const again = await store.insertNew([sending("whd_1b", { eventId: "evt_whd_1" }), sending("whd_3")]);
    expect(again).toEqual(new Set(["whd_3"]));
    expect(await db.em().count(WebhookSending, {})).toBe(3);
    const first = await stored("whd_1");
    expect(first).toMatchObject({
      ...live,
      endpointId: "we_1",
      eventId: "evt_whd_1",
      eventType: "level.up",
      status: "pending",
      attempts: 0,
      nextAttemptAt: at(0),
    });
    expect(first.body).toBe(sending("whd_1").body);
  });

  it("records successes of any mix of attempt counts and status codes, each only if still pending at its attempt count", async () => {
    await store.insertNew([
      sending("whd_a"),
      sending("whd_b", { attempts: 2, lastError: "timeout", lastStatusCode: 503 }),
      sending("whd_moved", { attempts: 1 }),
      sending("whd_done", { status: "failed" }),
    ]);
    await store.recordSuccesses(
      [
        { id: "whd_a", attempts: 0, statusCode: 200, ...timing(1, 7) },
        { id: "whd_b", attempts: 2, statusCode: 204, ...timing(2, 0) },
        { id: "whd_moved", attempts: 0, statusCode: 200, ...timing(3) },
        { id: "whd_done", attempts: 0, statusCode: 200, ...timing(4) },
      ],
      at(60),
    );
    expect(await stored("whd_a")).toMatchObject({
      status: "succeeded",
      attempts: 1,
      lastError: null,
      lastStatusCode: 200,
      nextAttemptAt: null,
      updatedAt: at(60),
    });
    expect(await stored("whd_b")).toMatchObject({ status: "succeeded", attempts: 3, lastError: null, lastStatusCode: 204, nextAttemptAt: null });
    expect(await stored("whd_moved")).toMatchObject({ status: "pending", attempts: 1, updatedAt: T0 });
    expect(await stored("whd_done")).toMatchObject({ status: "failed", attempts: 0, updatedAt: T0 });
    // A log row for each success the update applied to, none for the others.
    expect(await logOf("whd_a")).toEqual([
      { sendingId: "whd_a", number: 1, ...live, startedAt: at(1), durationMs: 7, outcome: "succeeded", httpStatus: 200, error: null, resend: false },
    ]);
    // Attempted before the log existed: numbered after the sending's count.
    expect(await logOf("whd_b")).toMatchObject([
      { number: 3, startedAt: at(2), durationMs: 0, outcome: "succeeded", httpStatus: 204, error: null, resend: false },
    ]);
    expect(await logOf("whd_moved")).toEqual([]);
    expect(await logOf("whd_done")).toEqual([]);
  });

  it("numbers attempts on across a resend (the sending's count restarts, the log's goes on) and marks the resent round", async () => {
    await store.insertNew([sending("whd_1")]);
    const failure = (attempts: number) => ({ status: "pending" as const, attempts, lastError: "HTTP 500", lastStatusCode: 500, nextAttemptAt: at(600) });
    await store.finish({ id: "whd_1", attempts: 0, ...live }, failure(1), at(1), timing(1, 30));
    await store.recordSuccesses([{ id: "whd_1", attempts: 1, statusCode: 200, ...timing(60, 5) }], at(61));
    // A resend: back to pending at 0 attempts, the last outcome kept.
    await db.em().nativeUpdate(WebhookSending, { id: "whd_1" }, { status: "pending", attempts: 0, nextAttemptAt: at(100) });
    await store.finish(
      { id: "whd_1", attempts: 0, ...live },
      { ...failure(1), lastError: "connection refused", lastStatusCode: null },
      at(101),
      timing(100, 3),
    );
    await store.recordSuccesses([{ id: "whd_1", attempts: 1, statusCode: 201, ...timing(160, 4) }], at(161));
    expect(
      (await logOf("whd_1")).map(({ number, outcome, httpStatus, error, resend, durationMs }) => ({ number, outcome, httpStatus, error, resend, durationMs })),
    ).toEqual([
      { number: 1, outcome: "failed", httpStatus: 500, error: "HTTP 500", resend: false, durationMs: 30 },
      { number: 2, outcome: "succeeded", httpStatus: 200, error: null, resend: false, durationMs: 5 },
      { number: 3, outcome: "failed", httpStatus: null, error: "connection refused", resend: true, durationMs: 3 },
      { number: 4, outcome: "succeeded", httpStatus: 201, error: null, resend: true, durationMs: 4 },
    ]);
    expect(await stored("whd_1")).toMatchObject({ status: "succeeded", attempts: 2, lastStatusCode: 201 });
  });

  it("keeps the latest attempts when a resend prunes the log, and numbering goes on from the last", async () => {
    await store.insertNew([sending("whd_1")]);
    const rows = Array.from({ length: KEPT_ATTEMPTS + 5 }, (_, i) => ({
      sendingId: "whd_1",
      number: i + 1,
      ...live,
      startedAt: at(i),
      durationMs: 1,
      outcome: "failed" as const,
      httpStatus: null,
      error: "timeout after 10s",
      resend: i >= MAX_SCHEDULED_ATTEMPTS,
    }));
    await db.em().insertMany(WebhookAttempt, rows);
    await db.em().transactional((em) => pruneAttemptLog(em, "whd_1"));
    const kept = await logOf("whd_1");
    expect(kept.map((row) => row.number)).toEqual(rows.slice(-(KEPT_ATTEMPTS - MAX_SCHEDULED_ATTEMPTS)).map((row) => row.number));
    await store.finish(
      { id: "whd_1", attempts: 0, ...live },
      { status: "pending", attempts: 1, lastError: "HTTP 502", lastStatusCode: 502, nextAttemptAt: at(900) },
      at(800),
      timing(800),
    );
    expect((await logOf("whd_1")).at(-1)).toMatchObject({ number: KEPT_ATTEMPTS + 6, resend: true, httpStatus: 502, error: "HTTP 502" });
  });

  it("finds due sendings in real time, soonest first and up to the limit, leaving out clocked test environments", async () => {
    await db.em().insert(TestClock, { id: "tc_1", clubId: clocked.clubId, now: at(99_999), createdAt: T0, updatedAt: T0 });
    await store.insertNew([
      sending("whd_late", { nextAttemptAt: at(20), eventId: "e1" }),
      sending("whd_early", { nextAttemptAt: at(10), eventId: "e2" }),
      sending("whd_test", { ...test, nextAttemptAt: at(15), eventId: "e3" }),
      sending("whd_future", { nextAttemptAt: at(100), eventId: "e4" }),
      sending("whd_closed", { status: "succeeded", nextAttemptAt: null, eventId: "e5" }),
      sending("whd_clocked", { ...clocked, nextAttemptAt: at(5), eventId: "e6" }),
      sending("whd_clocked_live", { ...clockedLive, nextAttemptAt: at(5), eventId: "e7" }),
    ]);
    expect(await store.dueInRealTime(at(30), 100)).toEqual(["whd_clocked_live", "whd_early", "whd_test", "whd_late"]);
    expect(await store.dueInRealTime(at(30), 2)).toEqual(["whd_clocked_live", "whd_early"]);
  });

  it("finds the due retries of one scope: attempted before (an error or a status code), soonest first", async () => {
    await store.insertNew([
      sending("whd_first", { nextAttemptAt: at(1), eventId: "e1" }),
      sending("whd_error", { attempts: 1, lastError: "refused", nextAttemptAt: at(9), eventId: "e2" }),
      sending("whd_status", { attempts: 1, lastStatusCode: 500, nextAttemptAt: at(3), eventId: "e3" }),
      sending("whd_resent", { attempts: 0, lastStatusCode: 200, nextAttemptAt: at(4), eventId: "e4" }),
      sending("whd_later", { attempts: 1, lastError: "refused", nextAttemptAt: at(100), eventId: "e5" }),
      sending("whd_test", { ...test, attempts: 1, lastError: "refused", nextAttemptAt: at(2), eventId: "e6" }),
    ]);
    expect(await store.dueRetriesOf(live, at(50), 100)).toEqual(["whd_status", "whd_resent", "whd_error"]);
    expect(await store.dueRetriesOf(test, at(50), 100)).toEqual(["whd_test"]);
    expect(await store.dueRetriesOf(live, at(50), 1)).toEqual(["whd_status"]);
  });

  it("claims a due attempt once: the lease moves its next attempt, so a second claim at the same time fails", async () => {
    await store.insertNew([sending("whd_1", { nextAttemptAt: at(10) }), sending("whd_closed", { status: "failed", eventId: "e2" })]);
    expect(await store.claim("whd_1", at(5), at(600))).toBe(false); // not due yet
    expect(await store.claim("whd_1", at(10), at(600))).toBe(true);
    expect(await store.claim("whd_1", at(10), at(600))).toBe(false);
    expect((await stored("whd_1")).nextAttemptAt).toEqual(at(600));
    expect(await store.claim("whd_closed", at(10), at(600))).toBe(false);
    expect(await store.claim("whd_unknown", at(10), at(600))).toBe(false);
  });

  it("loads a sending with its endpoint, null when the endpoint row is gone", async () => {
    await addEndpoint("we_1", live);
    await store.insertNew([sending("whd_1"), sending("whd_orphan", { endpointId: "we_missing", eventId: "e2" })]);
    const loaded = await store.load("whd_1");
    expect(loaded.sending).toMatchObject({ id: "whd_1", ...live, endpointId: "we_1", attempts: 0, status: "pending" });
    expect(loaded.endpoint).toMatchObject({ id: "we_1", url: "https://example.test/we_1", enabled: true, deletedAt: null });
    expect((await store.load("whd_orphan")).endpoint).toBeNull();
  });

  it("finishes an attempt only while the sending is pending at the attempt count it was read with", async () => {
    await store.insertNew([sending("whd_1", { attempts: 2 })]);
    const outcome = { status: "pending" as const, attempts: 3, lastError: "HTTP 500", lastStatusCode: 500, nextAttemptAt: at(300) };
    await store.finish({ id: "whd_1", attempts: 1, ...live }, outcome, at(60), timing(59));
    expect(await stored("whd_1")).toMatchObject({ attempts: 2, lastError: null, updatedAt: T0 });
    // Not applied: no log row either.
    expect(await logOf("whd_1")).toEqual([]);
    await store.finish({ id: "whd_1", attempts: 2, ...live }, outcome, at(60), timing(59, 250));
    expect(await stored("whd_1")).toMatchObject({ ...outcome, updatedAt: at(60) });
    expect(await logOf("whd_1")).toEqual([
      { sendingId: "whd_1", number: 3, ...live, startedAt: at(59), durationMs: 250, outcome: "failed", httpStatus: 500, error: "HTTP 500", resend: false },
    ]);
    // Stopped without an HTTP attempt (the endpoint was disabled): no log row.
    await store.finish(
      { id: "whd_1", attempts: 3, ...live },
      { status: "failed", attempts: 4, lastError: "gave up", lastStatusCode: null, nextAttemptAt: null },
      at(90),
    );
    expect(await logOf("whd_1")).toHaveLength(1);
    expect(await stored("whd_1")).toMatchObject({
      status: "failed",
      attempts: 4,
      lastError: "gave up",
      lastStatusCode: null,
      nextAttemptAt: null,
      updatedAt: at(90),
    });
  });
});
