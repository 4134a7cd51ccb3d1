// Every method of both SDKs once against a Prism mock of
// generated/openapi.json: Prism checks each request against the contract
// (path, parameters, body, security) and answers with the contract's example,
// which the SDK must hand back unchanged. One Prism serves both SDKs (it takes
// seconds of CPU to load the contract).
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { ClubeError, createClubeBrowser } from "../../sdk-browser/src/index.js";
import type { MeMethods } from "../../sdk-browser/src/index.js";
import type { OperationId } from "../../sdk-shared/src/operation-types.js";
import { Clube } from "../../sdk-node/src/index.js";
import { startPrism, type PrismServer } from "../support/prism.js";
import { operationIds, requestExample, responseExample } from "./contract-examples.js";
import { readFileSync } from "node:fs";
import { schemaValidators } from "../../generated/validators.js";
import type { OpenApiDocument } from "../../spec/codegen/document.js";

const contract = JSON.parse(readFileSync(new URL("../../generated/openapi.json", import.meta.url), "utf8")) as OpenApiDocument;

/** Exports answering text (CSV) have no SDK method: they are fetched as files (spec/codegen/sdk.ts). */
const TEXT_EXPORTS = new Set(["AffiliateReports_reportCsv", "AuditLog_listCsv"]);

/** The staff console's own-account operations take a session cookie, not a key: no SDK method (spec/codegen/sdk.ts). */
const CONSOLE_ONLY = new Set([
  "StaffSessions_create",
  "StaffSessions_get",
  "StaffSessions_delete",
  "StaffPasswords_change",
  "StaffMembers_list",
  "StaffMembers_create",
  "StaffMembers_get",
  "StaffMembers_update",
  "StaffMembers_delete",
  "StaffNotifications_list",
  "StaffNotifications_markRead",
]);

let prism: PrismServer;
beforeAll(async () => {
  prism = await startPrism({ mode: "mock" });
});
afterAll(() => prism?.stop());

/**
 * Prism picks a response by `Prefer: code=…`; this fetch adds that to the
 * request (keeping the SDK's own `Prefer`, which the contract validates).
 */
function preferCode(code: number) {
  return (request: Request) => {
    const steered = new Request(request);
    steered.headers.set("Prefer", [request.headers.get("Prefer"), `code=${code}`].filter(Boolean).join(", "));
    return fetch(steered);
  };
}

const client = (fetchImpl?: (request: Request) => Promise<Response>) =>
  new Clube({ apiKey: "cf_test_4eC39HqLyjWDarjtT1zdp7dc", baseUrl: prism.url, maxRetries: 0, fetch: fetchImpl });

const serverCalls: { [Id in OperationId]?: (clube: Clube) => Promise<unknown> } = {
  Health_get: (c) => c.health.get(),
  Participants_upsert: (c) => c.participants.upsert(requestExample("Participants_upsert")),
  Participants_get: (c) => c.participants.get("user_8412"),
  Participants_progress: (c) => c.participants.progress("user_8412"),
  Participants_progressBatch: (c) => c.participants.progressMany(requestExample("Participants_progressBatch")),
  Participants_createToken: (c) => c.participants.token("user_8412", requestExample("Participants_createToken")),
  Participants_rename: (c) => c.participants.rename("user_8412", requestExample("Participants_rename")),
  Events_send: (c) => c.events.send(requestExample("Events_send")),
  Events_sendBatch: (c) => c.events.sendBatch(requestExample("Events_sendBatch")),
  Deliveries_list: (c) => c.deliveries.list({ status: "pending" }),
  Deliveries_confirm: (c) => c.deliveries.confirm("dlv_01JQ5C2P9T5A7B4E", requestExample("Deliveries_confirm")),
  Deliveries_fail: (c) => c.deliveries.fail("dlv_01JQ5D7K2M4N6P8Q", requestExample("Deliveries_fail")),
  Config_get: (c) => c.config.get(),
  Cashback_get: (c) => c.cashback.get(),
  Redemptions_create: (c) => c.redemptions.create(requestExample("Redemptions_create")),
  Referrals_register: (c) => c.referrals.register(requestExample("Referrals_register")),
  Affiliates_attribute: (c) => c.affiliates.attribute(requestExample("Affiliates_attribute")),
  Keys_get: (c) => c.key.get(),
  Games_list: (c) => c.games.list({ category: "video-slots", limit: 50 }),
  Games_sync: (c) => c.games.sync(requestExample("Games_sync")),
  EventLog_list: (c) => c.events.list({ participant: "user_8412", limit: 20 }),
  EventLog_get: (c) => c.events.get("evt_01JQ5C2P6M0P2R4T"),
  Overview_get: (c) => c.overview.get(),
  ParticipantLedger_list: (c) => c.participants.ledger("user_8412", { limit: 1 }),
  EventLog_sendTest: (c) => c.events.test(requestExample("EventLog_sendTest")),
  AffiliateAccounts_create: (c) => c.affiliates.create(requestExample("AffiliateAccounts_create")),
  AffiliateAccounts_list: (c) => c.affiliates.list({ status: "active" }),
  AffiliateAccounts_get: (c) => c.affiliates.get("aff_01JQ1A2B3C4D5E6F"),
  AffiliateAccounts_update: (c) => c.affiliates.update("aff_01JQ1A2B3C4D5E6F", requestExample("AffiliateAccounts_update")),
  AffiliateReports_report: (c) => c.affiliates.report({ from: "2025-03-01T03:00:00Z", to: "2025-04-01T03:00:00Z" }),
  CashbackSettings_update: (c) => c.cashback.update(requestExample("CashbackSettings_update")),
  ConfigVersions_getDraft: (c) => c.config.getDraft(),
  ConfigVersions_saveDraft: (c) => c.config.saveDraft(requestExample("ConfigVersions_saveDraft")),
  ConfigVersions_publish: (c) => c.config.publish(requestExample("ConfigVersions_publish")),
  ConfigVersions_list: (c) => c.config.versions({ limit: 10 }),
  ConfigVersions_getVersion: (c) => c.config.getVersion(7),
  Warnings_list: (c) => c.warnings.list({ kind: "delivery_unconfirmed" }),
  Tournaments_list: (c) => c.tournaments.list(),
  Tournaments_standings: (c) => c.tournaments.standings("slots-semanal", "2026-11-23", { limit: 1 }),
  Backtests_run: (c) => c.config.backtest(7, requestExample("Backtests_run")),
  Backtests_get: (c) => c.config.backtestJob("btr_01JQ9A2B3C4D5E6F7G8H"),
  WheelAudit_list: (c) => c.participants.wheelSpins("user_8412"),
  TestClocks_get: (c) => c.testClock.get(),
  TestClocks_advance: (c) => c.testClock.advance(requestExample("TestClocks_advance")),
  TestClocks_delete: (c) => c.testClock.delete(),
  WebhookEndpoints_create: (c) => c.webhookEndpoints.create(requestExample("WebhookEndpoints_create")),
  WebhookEndpoints_list: (c) => c.webhookEndpoints.list(),
  WebhookEndpoints_get: (c) => c.webhookEndpoints.get("we_01JQ7E5F6G8J0L2N"),
  WebhookEndpoints_update: (c) => c.webhookEndpoints.update("we_01JQ7E5F6G8J0L2N", requestExample("WebhookEndpoints_update")),
  WebhookEndpoints_delete: (c) => c.webhookEndpoints.delete("we_01JQ7E5F6G8J0L2N"),
  WebhookEndpoints_rotateSecret: (c) => c.webhookEndpoints.rotateSecret("we_01JQ7E5F6G8J0L2N"),
  WebhookEndpoints_listSendings: (c) => c.webhookEndpoints.sendings("we_01JQ7E5F6G8J0L2N", { status: "failed" }),
  WebhookSendings_resend: (c) => c.webhookEndpoints.resend("whd_01JQ5C2PB2C3D4E5"),
  WebhookSendings_get: (c) => c.webhookEndpoints.sending("whd_01JQ5C2PB2C3D4E5"),
  WebhookEndpoints_sendTest: (c) => c.webhookEndpoints.sendTest("we_01JQ7E5F6G8J0L2N"),
  ApiKeys_list: (c) => c.apiKeys.list(),
  StaffRoles_list: (c) => c.staff.roles(),
  AuditLog_list: (c) => c.auditLog.list(),
  ApiKeys_create: (c) => c.apiKeys.create(),
  ApiKeys_roll: (c) => c.apiKeys.roll("key_01JQ7E5F6G8J0L2N", requestExample("ApiKeys_roll")),
  ApiKeys_revoke: (c) => c.apiKeys.revoke("key_01JQ7E5F6G8J0L2N"),
  TokenSecret_roll: (c) => c.tokenSigningSecret.roll(requestExample("TokenSecret_roll")),
  Codes_create: (c) => c.codes.create(requestExample("Codes_create")),
  Codes_list: (c) => c.codes.list(),
  Codes_get: (c) => c.codes.get("CARNAVAL25"),
  Codes_disable: (c) => c.codes.disable("CARNAVAL25"),
  Codes_redeemFor: (c) => c.codes.redeemFor("user_8412", requestExample("Codes_redeemFor")),
};

/** One call per participant-surface operation: run headless by the Node client and with a token by the browser client. */
const meCalls: { [Id in OperationId]?: (me: MeMethods) => Promise<unknown> } = {
  Me_getProfile: (me) => me.profile(),
  Me_getProgress: (me) => me.progress(),
  Me_listMissions: (me) => me.missions(),
  Me_claimMission: (me) => me.claimMission("deposito-semanal"),
  Me_getCheckin: (me) => me.checkin(),
  Me_claimCheckin: (me) => me.claimCheckin(),
  Me_getWheel: (me) => me.wheel(),
  Me_spinWheel: (me) => me.spin({ idempotencyKey: "spin-user_8412-2025-03-14" }),
  Me_listStore: (me) => me.store(),
  Me_redeemStoreItem: (me) => me.redeem("giros-10"),
  Me_listRewards: (me) => me.rewards(),
  Me_listNotifications: (me) => me.notifications({ unread: true, limit: 20 }),
  Me_markNotificationRead: (me) => me.markRead("ntf_01HQ9Z3K8A1B2C3D4E5F"),
  Me_markAllNotificationsRead: (me) => me.markAllRead(),
  Me_getCashback: (me) => me.cashback(),
  Me_claimCashback: (me) => me.claimCashback(),
  Me_getReferral: (me) => me.referral(),
  Me_listLeaderboards: (me) => me.leaderboards(),
  Me_getLeaderboard: (me) => me.leaderboard("torneio-slots-marco", { limit: 10 }),
  Me_listBadges: (me) => me.badges(),
  Me_listTournaments: (me) => me.tournaments({ limit: 2 }),
  Me_getConfig: (me) => me.config(),
  Me_rotateWheelSeed: (me) => me.rotateWheelSeed(requestExample("Me_rotateWheelSeed")),
  Me_listWheelSpins: (me) => me.wheelSpins(),
  Me_redeemCode: (me) => me.redeemCode(requestExample("Me_redeemCode")),
};

describe("@clube/node against the Prism mock", () => {
  it("has a call here for every server-mode and management operation of the contract", () => {
    expect(Object.keys(serverCalls).sort()).toEqual(operationIds.filter((id) => !id.startsWith("Me_") && !TEXT_EXPORTS.has(id) && !CONSOLE_ONLY.has(id)));
    expect(Object.keys(meCalls).sort()).toEqual(operationIds.filter((id) => id.startsWith("Me_")));
  });

  it.each(Object.entries(serverCalls))("%s returns the contract's example", async (operationId, call) => {
    expect(await call!(client())).toEqual(responseExample(operationId as OperationId));
  });

  it.each(Object.entries(meCalls))("headless %s (secret key + X-Participant) returns the contract's example", async (operationId, call) => {
    expect(await call!(client().me("user_8412"))).toEqual(responseExample(operationId as OperationId));
  });

  it("events.send with async: true answers the 202 EventsQueued example", async () => {
    const queued = await client(preferCode(202)).events.send(requestExample("Events_send"), { async: true });
    expect(queued).toEqual(responseExample("Events_send", "202"));
    expect(queued.queued).toBe(true);
  });

  it("events.sendBatch with async: true answers the 202 EventsQueued example", async () => {
    const queued = await client(preferCode(202)).events.sendBatch(requestExample("Events_sendBatch"), { async: true });
    expect(queued).toEqual(responseExample("Events_sendBatch", "202"));
  });

  it("turns a documented error into a ClubeError with the contract's code and the request id", async () => {
    const error = await client(preferCode(404))
      .participants.get("user_9999")
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClubeError);
    const example = responseExample("Participants_get", "404") as { error: { code: string; message: string } };
    expect(error).toMatchObject({ status: 404, code: example.error.code, message: example.error.message, raw: example });
    expect((error as ClubeError).requestId).toMatch(/^req_/);
  });

  it("is refused by the contract's security without a key on a secret-key route", async () => {
    const noKey = (request: Request) => {
      const bare = new Request(request);
      bare.headers.delete("Authorization");
      return fetch(bare);
    };
    await expect(client(noKey).participants.get("user_8412")).rejects.toMatchObject({ status: 401 });
  });
});

const participantToken = "eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJ1c2VyXzg0MTIiLCJjbHViIjoiY2xiXzdIM0s5USIsImVudiI6InRlc3QifQ.c2lnbmF0dXJl";

describe("@clube/browser against the Prism mock", () => {
  it.each(Object.entries(meCalls))("%s returns the contract's example", async (operationId, call) => {
    const clube = createClubeBrowser({ baseUrl: prism.url, getToken: async () => participantToken });
    expect(await call!(clube.me)).toEqual(responseExample(operationId as OperationId));
  });

  it("when every token is refused, throws the contract's 401 and calls onAuthExpired", async () => {
    const getToken = vi.fn(async () => participantToken);
    const onAuthExpired = vi.fn();
    const clube = createClubeBrowser({
      baseUrl: prism.url,
      getToken,
      onAuthExpired,
      // Prism answers the documented 401 example when asked for it.
      fetch: (request) => {
        const refused = new Request(request);
        refused.headers.set("Prefer", "code=401");
        return fetch(refused);
      },
    });
    const error = await clube.me.profile().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClubeError);
    expect(error).toMatchObject({ status: 401, raw: responseExample("Me_getProfile", "401") });
    expect(getToken).toHaveBeenCalledTimes(2);
    expect(onAuthExpired).toHaveBeenCalledTimes(1);
  });
});

/**
 * The mock errs as the service does: every declared error response carries
 * examples with the service's codes and messages (spec/codegen/interop.ts),
 * Prism picks the first with `Prefer: code=…` and any one by name with
 * `Prefer: example=…`, and a body is always `{error: {code, message}}`.
 */
describe("errors from the Prism mock", () => {
  const KEY = "Bearer cf_test_4eC39HqLyjWDarjtT1zdp7dc";
  const errorCodes = new Set((contract.components!.schemas!.ErrorCode as { enum: string[] }).enum);

  async function call(method: string, path: string, prefer: string, init: { auth?: boolean; body?: unknown } = {}) {
    const headers: Record<string, string> = { Prefer: prefer };
    if (init.auth !== false) headers.Authorization = KEY;
    if (init.body !== undefined) headers["Content-Type"] = "application/json";
    const response = await fetch(`${prism.url}${path}`, { method, headers, body: init.body === undefined ? undefined : JSON.stringify(init.body) });
    const body = (await response.json()) as { error: { code: string; message: string } };
    expect(schemaValidators.ErrorBody(body), JSON.stringify(body)).toBe(true);
    expect(errorCodes.has(body.error.code), body.error.code).toBe(true);
    return { status: response.status, error: body.error };
  }

  it("answers a 401 with the service's unauthorized error, and the expired-token one by name", async () => {
    expect(await call("GET", "/v1/participants/user_8412", "code=401")).toEqual({
      status: 401,
      error: { code: "unauthorized", message: "Send your key as `Authorization: Bearer <key>`." },
    });
    expect(await call("GET", "/v1/me/badges", "code=401, example=Expired token")).toEqual({
      status: 401,
      error: { code: "invalid_token", message: "The participant token has expired; ask your server for a new one." },
    });
  });

  it("answers a 404 with the service's not_found error naming the resource", async () => {
    expect(await call("GET", "/v1/webhook_endpoints/we_01JQ7E5F6G8J0L2N", "code=404")).toEqual({
      status: 404,
      error: { code: "not_found", message: "Webhook endpoint 'we_01JQ0000000000000' was not found." },
    });
    expect(await call("POST", "/v1/test_clock/advance", "code=404", { body: { to: "2026-12-18T12:00:00Z" } })).toEqual({
      status: 404,
      error: { code: "not_found", message: "A test clock (test clocks exist in the test environment only) was not found." },
    });
  });

  it("answers a 409 with the operation's own conflict codes, each selectable by name", async () => {
    const taken = await call("POST", "/v1/codes", "code=409", { body: requestExample("Codes_create") });
    expect(taken).toEqual({ status: 409, error: { code: "code_taken", message: 'Promotional code "CARNAVAL25" already exists' } });
    const reused = await call("POST", "/v1/events", "code=409, example=Idempotency key reused", { body: requestExample("Events_send") });
    expect(reused.status).toBe(409);
    expect(reused.error.code).toBe("idempotency_key_reused");
  });

  it("answers Prefer: respond-async with the 202 EventsQueued when asked for the status too (Prism reads Prefer itself)", async () => {
    const response = await fetch(`${prism.url}/v1/events`, {
      method: "POST",
      headers: { Authorization: KEY, "Content-Type": "application/json", Prefer: "respond-async, code=202" },
      body: JSON.stringify(requestExample("Events_send")),
    });
    expect(response.status).toBe(202);
    expect(await response.json()).toEqual(responseExample("Events_send", "202"));
  });
});
