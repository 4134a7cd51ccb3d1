// The operations the staff console reads and acts through, on both databases:
// one event with its effects and trace, the event log's time filter, the
// 24-hour overview, `webhook.test` on demand and a sending with its payload;
// a viewer reads them and is refused the test with 403.
import { afterAll, beforeAll, expect, it } from "vitest";
import { OutboxMessage, WebhookSending } from "../../server/src/db/entities/index.js";
import { newId } from "../../server/src/db/ids.js";
import { createStaffMember } from "../../server/src/usecases/staff/index.js";
import { expectError, manualClock, startApi, type ApiResponse, type TestApi } from "../support/api.js";
import { describeEachDatabase } from "../support/databases.js";

const NOW = new Date("2026-11-18T12:00:00Z");
const PASSWORD = "Plenty-of-words 42 here";
const HOUR = 3_600_000;

describeEachDatabase("API for the console", (kind) => {
  let api: TestApi;
  const clock = manualClock(NOW);
  let viewer: (method: string, path: string) => Promise<ApiResponse>;

  beforeAll(async () => {
    api = await startApi(kind, { clock });
    await createStaffMember(api.db, api.clubId, { email: "viewer@sorte.example", display_name: "Vitor", role: "viewer", env: null, password: PASSWORD }, NOW);
    // A fresh session per call: the tests move the clock past a session's idle timeout.
    viewer = async (method, path) => {
      const login = await api.request("POST", "/v1/staff/sessions", {
        key: null,
        body: { club_id: api.clubId, email: "viewer@sorte.example", password: PASSWORD },
      });
      expect(login.status).toBe(201);
      const cookie = /clube_session=([^;]+)/.exec(login.headers.get("set-cookie") ?? "")![1];
      return api.request(method, path, { key: null, headers: { Cookie: `clube_session=${cookie}`, "X-CSRF-Token": login.body.csrf_token } });
    };
  });
  afterAll(() => api?.close());

  it("GET /v1/events/{id}: the entry, its effects with their rules, its meta and trace; 404 for an unknown id or another club's", async () => {
    const test = await api.request("POST", "/v1/events/test", {
      body: { participant: "cr_ana", type: "deposit.confirmed", id: "cr-dep-1", amount: 100, meta: { method: "pix" } },
    });
    expect(test.status).toBe(200);
    const read = await api.request("GET", `/v1/events/${test.body.event_id}`);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({
      id: test.body.event_id,
      event_id: "cr-dep-1",
      participant: "cr_ana",
      type: "deposit.confirmed",
      status: "processed",
      duplicate_of: null,
    });
    expect(read.body.effects).toEqual(test.body.effects);
    expect(read.body.effects_count).toBe(test.body.effects.length);
    expect(read.body.effects).toContainEqual(expect.objectContaining({ type: "xp_granted", rule_id: "deposit-xp" }));
    expect(read.body.meta).toMatchObject({ method: "pix", test: true });
    expect(read.body.trace.entries).toContainEqual(expect.objectContaining({ kind: "rule", id: "deposit-xp", matched: true }));
    expect((await viewer("GET", `/v1/events/${test.body.event_id}`)).status).toBe(200);

    // A plain event without ?trace=true has no trace, and a duplicate applied nothing.
    const plain = await api.request("POST", "/v1/events", { body: { participant: "cr_ana", type: "deposit.confirmed", id: "cr-dep-2", amount: 10 } });
    const repeat = await api.request("POST", "/v1/events", { body: { participant: "cr_ana", type: "deposit.confirmed", id: "cr-dep-2", amount: 10 } });
    expect(repeat.body.duplicate).toBe(true);
    const log = await api.request("GET", "/v1/events?participant=cr_ana&limit=1");
    const duplicate = await api.request("GET", `/v1/events/${log.body.data[0].id}`);
    expect(duplicate.body).toMatchObject({ duplicate_of: plain.body.event_id, effects: [], effects_count: 0, trace: null, meta: {} });

    expectError(await api.request("GET", "/v1/events/evt_nope"), 404, "not_found");
    const other = await api.createOtherClub();
    expectError(await api.request("GET", `/v1/events/${test.body.event_id}`, { key: other.keys.test }), 404, "not_found");
  });

  it("filters the event log by time (from inclusive, to exclusive), with paging inside the window", async () => {
    const at = (iso: string) => clock.set(new Date(iso));
    for (const [index, time] of ["2026-11-18T12:10:00Z", "2026-11-18T12:20:00Z", "2026-11-18T12:30:00Z", "2026-11-18T12:40:00Z"].entries()) {
      at(time);
      expect((await api.request("POST", "/v1/events", { body: { participant: "cr_time", type: "user.login", id: `cr-login-${index}` } })).status).toBe(200);
    }
    const ids = async (query: string) => (await api.request("GET", `/v1/events?participant=cr_time&${query}`)).body.data.map((entry: any) => entry.event_id);
    expect(await ids("from=2026-11-18T12:20:00Z&to=2026-11-18T12:40:00Z")).toEqual(["cr-login-2", "cr-login-1"]);
    expect(await ids("from=2026-11-18T12:30:00Z")).toEqual(["cr-login-3", "cr-login-2"]);
    expect(await ids("to=2026-11-18T12:10:00.001Z")).toEqual(["cr-login-0"]);
    const first = await api.request("GET", "/v1/events?participant=cr_time&from=2026-11-18T12:10:00Z&to=2026-11-18T12:35:00Z&limit=2");
    expect(first.body.has_more).toBe(true);
    const next = await api.request(
      "GET",
      `/v1/events?participant=cr_time&from=2026-11-18T12:10:00Z&to=2026-11-18T12:35:00Z&limit=2&starting_after=${first.body.data[1].id}`,
    );
    expect(next.body).toMatchObject({ data: [expect.objectContaining({ event_id: "cr-login-0" })], has_more: false });
    expectError(await api.request("GET", "/v1/events?from=yesterday"), 422, "validation_failed");
    expect((await api.request("GET", "/v1/events?from=yesterday")).body.error.message).toContain("from");
  });

  it("POST /v1/webhook_endpoints/{id}/test queues webhook.test to that endpoint only; 409 when disabled, 404 unknown, 403 for a viewer", async () => {
    const endpoint = await api.request("POST", "/v1/webhook_endpoints", { body: { url: "https://hooks.sorte.example/clube", events: ["reward.*"] } });
    expect(endpoint.status).toBe(201);
    const queued = await api.request("POST", `/v1/webhook_endpoints/${endpoint.body.id}/test`);
    expect(queued.status).toBe(200);
    expect(queued.body).toEqual({ endpoint_id: endpoint.body.id, event_id: expect.stringMatching(/^evt_/), type: "webhook.test" });
    const messages = await api.db.em().find(OutboxMessage, { clubId: api.clubId, env: "test", kind: "webhook" });
    const message = messages.find((row) => (row.payload as { id: string }).id === queued.body.event_id);
    expect(message?.payload).toMatchObject({ type: "webhook.test", data: { endpoint_id: endpoint.body.id } });

    const forbidden = await viewer("POST", `/v1/webhook_endpoints/${endpoint.body.id}/test`);
    expectError(forbidden, 403, "forbidden");
    expect(forbidden.body.error.message).toContain("webhooks.write");

    expect((await api.request("POST", `/v1/webhook_endpoints/${endpoint.body.id}`, { body: { enabled: false } })).status).toBe(200);
    expectError(await api.request("POST", `/v1/webhook_endpoints/${endpoint.body.id}/test`), 409, "conflict");
    expectError(await api.request("POST", "/v1/webhook_endpoints/we_nope/test"), 404, "not_found");
  });

  it("GET /v1/webhook_sendings/{id} answers the sending with the exact body it sends; 404 otherwise", async () => {
    const endpoint = await api.request("POST", "/v1/webhook_endpoints", { body: { url: "https://hooks.sorte.example/payload" } });
    const id = await insertSending(endpoint.body.id, "failed", NOW);
    const read = await viewer("GET", `/v1/webhook_sendings/${id}`);
    expect(read.status).toBe(200);
    expect(read.body).toMatchObject({ id, endpoint_id: endpoint.body.id, status: "failed", attempts: 9, last_error: "HTTP 503", last_status_code: 503 });
    expect(JSON.parse(read.body.body)).toMatchObject({ type: "reward.delivery_requested", data: { n: 1 } });
    expectError(await api.request("GET", "/v1/webhook_sendings/whd_nope"), 404, "not_found");
  });

  it("GET /v1/overview: the last 24 hours per minute, effects and rewards granted, deliveries waiting, each endpoint's success rate", async () => {
    const club = await api.createOtherClub();
    const other = {
      request: (method: string, path: string, options: { body?: unknown } = {}) => api.request(method, path, { ...options, key: club.keys.test }),
    };
    clock.set(new Date("2026-11-20T09:00:00Z"));
    const sent = [];
    for (const [index, minute] of ["09:00:10", "09:00:50", "09:02:00"].entries()) {
      clock.set(new Date(`2026-11-20T${minute}Z`));
      const result = await other.request("POST", "/v1/events", {
        body: { participant: `ov_${index}`, type: "deposit.confirmed", id: `ov-dep-${index}`, amount: 100 },
      });
      expect(result.status).toBe(200);
      sent.push(result.body);
    }
    const endpoint = await other.request("POST", "/v1/webhook_endpoints", { body: { url: "https://hooks.sorte.example/overview" } });
    const at = new Date("2026-11-20T09:03:00Z");
    for (const status of ["succeeded", "succeeded", "succeeded", "failed", "pending"] as const) await insertSending(endpoint.body.id, status, at, club.clubId);
    await insertSending(endpoint.body.id, "failed", new Date(at.getTime() - 25 * HOUR), club.clubId);

    clock.set(new Date("2026-11-20T10:00:00Z"));
    const overview = await other.request("GET", "/v1/overview");
    expect(overview.status).toBe(200);
    const effects = sent.reduce((sum, result) => sum + result.effects.length, 0);
    const rewards = sent.reduce((sum, result) => sum + result.effects.filter((effect: any) => effect.type === "reward_granted").length, 0);
    expect(overview.body).toMatchObject({
      from: "2026-11-19T10:00:00.000Z",
      to: "2026-11-20T10:00:00.000Z",
      events_total: 3,
      events_per_minute: [
        { minute: "2026-11-20T09:00:00.000Z", events: 2 },
        { minute: "2026-11-20T09:02:00.000Z", events: 1 },
      ],
      effects_granted: effects,
      rewards_granted: rewards,
      webhook_endpoints: [
        { endpoint_id: endpoint.body.id, url: "https://hooks.sorte.example/overview", enabled: true, succeeded: 3, failed: 1, pending: 1, success_rate: 0.75 },
      ],
    });
    const pending = (await other.request("GET", "/v1/deliveries?status=pending")).body.deliveries.length;
    expect(overview.body.deliveries).toEqual({ pending, overdue: 0, failed: 0 });

    // Two days later the same deliveries are overdue, and the window holds no events.
    clock.set(new Date("2026-11-22T10:00:00Z"));
    const later = (await other.request("GET", "/v1/overview")).body;
    expect(later).toMatchObject({
      events_total: 0,
      events_per_minute: [],
      effects_granted: 0,
      rewards_granted: 0,
      deliveries: { pending, overdue: pending, failed: 0 },
    });
    expect(later.webhook_endpoints[0]).toMatchObject({ succeeded: 0, failed: 0, pending: 0, success_rate: null });
    expect((await viewer("GET", "/v1/overview")).status).toBe(200);
  });

  it("GET /v1/participants/{external_id}/ledger: every change with its rule or reason and its event, newest first, paged; 404 for an unknown participant", async () => {
    clock.set(new Date("2026-11-25T10:00:00Z"));
    const first = await api.request("POST", "/v1/events", { body: { participant: "cr_ledger", type: "deposit.confirmed", id: "led-dep-1", amount: 100 } });
    clock.set(new Date("2026-11-25T10:05:00Z"));
    const second = await api.request("POST", "/v1/events", { body: { participant: "cr_ledger", type: "deposit.confirmed", id: "led-dep-2", amount: 100 } });
    const ledger = await viewer("GET", "/v1/participants/cr_ledger/ledger?limit=100");
    expect(ledger.status).toBe(200);
    const xp = ledger.body.data.filter((line: any) => line.unit === "xp");
    const grantedXp = (result: any) => result.effects.filter((effect: any) => effect.type === "xp_granted");
    expect(xp.length).toBe(grantedXp(first.body).length + grantedXp(second.body).length);
    expect(xp[0]).toMatchObject({
      id: expect.any(String),
      amount_minor: expect.any(Number),
      reason: expect.any(String),
      event_id: second.body.event_id,
      created_at: "2026-11-25T10:05:00.000Z",
    });
    expect(xp.map((line: any) => line.rule_id)).toContain("deposit-xp");
    const depositXp = xp.find((line: any) => line.rule_id === "deposit-xp" && line.event_id === first.body.event_id);
    expect(depositXp.amount_minor).toBe(first.body.effects.find((effect: any) => effect.rule_id === "deposit-xp" && effect.type === "xp_granted").amount);
    // balance_after_minor is the running total: the newest XP line's equals the sum of all XP lines.
    expect(xp[0].balance_after_minor).toBe(xp.reduce((sum: number, line: any) => sum + line.amount_minor, 0));

    const onlyXp = await api.request("GET", "/v1/participants/cr_ledger/ledger?unit=xp&limit=1");
    expect(onlyXp.body).toMatchObject({ data: [{ id: xp[0].id }], has_more: xp.length > 1 });
    const next = await api.request("GET", `/v1/participants/cr_ledger/ledger?unit=xp&limit=1&starting_after=${xp[0].id}`);
    expect(next.body.data[0].id).toBe(xp[1].id);
    expectError(await api.request("GET", "/v1/participants/cr_ledger/ledger?starting_after=led_nope"), 422, "validation_failed");
    expectError(await api.request("GET", "/v1/participants/nobody_here/ledger"), 404, "not_found");
  });

  async function insertSending(endpointId: string, status: "pending" | "succeeded" | "failed", at: Date, clubId = api.clubId): Promise<string> {
    const id = newId("whd");
    const em = api.db.em();
    em.create(WebhookSending, {
      id,
      clubId,
      env: "test",
      endpointId,
      eventId: newId("evt"),
      eventType: "reward.delivery_requested",
      body: JSON.stringify({ id: "evt_x", type: "reward.delivery_requested", data: { n: 1 } }),
      status,
      attempts: status === "failed" ? 9 : 1,
      lastError: status === "failed" ? "HTTP 503" : null,
      lastStatusCode: status === "failed" ? 503 : 200,
      nextAttemptAt: status === "pending" ? at : null,
      createdAt: at,
      updatedAt: at,
    });
    await em.flush();
    return id;
  }
});
