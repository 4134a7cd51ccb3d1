import { afterAll, beforeAll, expect, it } from "vitest";
import { readFileSync } from "node:fs";
import { operationValidators } from "../../generated/validators.js";
import { ClubSecret } from "../../server/src/db/entities/index.js";
import { expectError, type ApiResponse, type TestApi, type TestClub } from "../support/api.js";
import { openTestClub } from "../support/club.js";
import { describeEachDatabase } from "../support/databases.js";

const MiB = 1024 * 1024;

/** A valid JSON document padded with trailing whitespace to exactly `bytes` bytes. */
function jsonOfSize(value: unknown, bytes: number): string {
  const json = JSON.stringify(value);
  return json + " ".repeat(bytes - Buffer.byteLength(json));
}

const REQUEST_ID = /^req_[A-Za-z0-9_-]+$/;

/** One refused request: how to send it and the documented answer (`message`: what the message must name). */
interface ErrorRow {
  row: string;
  send: () => Promise<ApiResponse>;
  status: number;
  code: string;
  message?: string;
}

describeEachDatabase("API errors", (kind) => {
  let api: TestApi;
  let other: TestClub;
  /** A club whose live environment has lost its token signing secret. */
  let unsigned: TestClub;
  /** A delivery of ana's that was reported failed, so it is closed. */
  let closedDelivery: string;
  /** ana's own referral code. */
  let referralCode: string;

  beforeAll(async () => {
    api = await openTestClub(kind, { api: true });
    other = await api.createOtherClub();
    unsigned = await api.createOtherClub();
    await api.db.em().nativeDelete(ClubSecret, { clubId: unsigned.clubId, env: "live" });
    for (const external_id of ["ana", "bia"]) {
      expect((await api.request("POST", "/v1/participants", { body: { external_id, display_name: `Perfil ${external_id}` } })).status).toBe(200);
    }
    // ana's first deposit grants a client-delivered reward (the demo club's first-deposit rule) and a few coins
    const deposit = await api.request("POST", "/v1/events", { body: { participant: "ana", type: "deposit.confirmed", id: "dep-1", amount: 50 } });
    closedDelivery = deposit.body.effects.find((effect: { delivery_id?: string }) => effect.delivery_id).delivery_id;
    expect((await api.request("POST", `/v1/deliveries/${closedDelivery}/fail`, { body: { reason: "Conta bloqueada" } })).status).toBe(200);
    referralCode = (await api.request("GET", "/v1/me/referral", { participant: "ana" })).body.code;
    expect((await api.request("POST", "/v1/affiliates", { body: { code: "PARCEIRO1", name: "Parceiro Um" } })).status).toBe(201);
    expect((await api.request("POST", "/v1/affiliates/attributions", { body: { participant_external_id: "bia", code: "PARCEIRO1" } })).status).toBe(201);
  });
  afterAll(() => api?.close());

  // The seed's error table ("Errors"), row by row.
  const seedTable: ErrorRow[] = [
    { row: "401 no key on a secret-key route", send: () => api.request("GET", "/v1/participants/ana", { key: null }), status: 401, code: "unauthorized" },
    { row: "404 participant not found", send: () => api.request("GET", "/v1/participants/nobody"), status: 404, code: "not_found", message: "nobody" },
    {
      row: "404 participant of another club (club-mismatched key)",
      send: () => api.request("GET", "/v1/participants/ana", { key: other.keys.test }),
      status: 404,
      code: "not_found",
    },
    { row: "404 delivery not found (confirm)", send: () => api.request("POST", "/v1/deliveries/dlv_nope/confirm"), status: 404, code: "not_found" },
    {
      row: "404 delivery not found (fail)",
      send: () => api.request("POST", "/v1/deliveries/dlv_nope/fail", { body: { reason: "Sem saldo" } }),
      status: 404,
      code: "not_found",
    },
    {
      row: "404 reward not found",
      send: () => api.request("POST", "/v1/redemptions", { body: { participant: "ana", reward: "giros-500" } }),
      status: 404,
      code: "not_found",
    },
    {
      row: "404 participant not found (redemption)",
      send: () => api.request("POST", "/v1/redemptions", { body: { participant: "nobody", reward: "store-bonus-10" } }),
      status: 404,
      code: "not_found",
    },
    {
      row: "404 referral code not found",
      send: () => api.request("POST", "/v1/referrals", { body: { referred_external_id: "carla", code: "NAOEXISTE" } }),
      status: 404,
      code: "not_found",
    },
    {
      row: "404 affiliate code not found",
      send: () => api.request("POST", "/v1/affiliates/attributions", { body: { participant_external_id: "carla", code: "NAOEXISTE" } }),
      status: 404,
      code: "not_found",
    },
    {
      row: "409 rename target exists without merge",
      send: () => api.request("POST", "/v1/participants/ana/rename", { body: { new_external_id: "bia" } }),
      status: 409,
      code: "participant_exists",
    },
    {
      row: "409 confirming a closed delivery",
      send: () => api.request("POST", `/v1/deliveries/${closedDelivery}/confirm`),
      status: 409,
      code: "already_closed",
    },
    {
      row: "409 failing a closed delivery",
      send: () => api.request("POST", `/v1/deliveries/${closedDelivery}/fail`, { body: { reason: "De novo" } }),
      status: 409,
      code: "already_closed",
    },
    {
      row: "409 redemption with insufficient balance",
      send: () => api.request("POST", "/v1/redemptions", { body: { participant: "ana", reward: "store-bonus-10" } }),
      status: 409,
      code: "insufficient_balance",
    },
    {
      row: "409 referral that does not count (own code)",
      send: () => api.request("POST", "/v1/referrals", { body: { referred_external_id: "ana", code: referralCode } }),
      status: 409,
      code: "referral_not_counted",
    },
    {
      row: "409 affiliate attribution conflict (player already attributed)",
      send: () => api.request("POST", "/v1/affiliates/attributions", { body: { participant_external_id: "bia", code: "PARCEIRO1" } }),
      status: 409,
      code: "affiliate_conflict",
    },
    {
      row: "422 progress list empty",
      send: () => api.request("POST", "/v1/participants/progress", { body: { external_ids: [] } }),
      status: 422,
      code: "validation_failed",
      message: "body.external_ids",
    },
    {
      row: "422 progress list over 200 ids",
      send: () => api.request("POST", "/v1/participants/progress", { body: { external_ids: Array.from({ length: 201 }, (_, i) => `u${i}`) } }),
      status: 422,
      code: "validation_failed",
      message: "body.external_ids",
    },
    {
      row: "422 rename id invalid",
      send: () => api.request("POST", "/v1/participants/ana/rename", { body: { new_external_id: "ana souza" } }),
      status: 422,
      code: "validation_failed",
      message: "body.new_external_id",
    },
    {
      row: "422 rename id same as current",
      send: () => api.request("POST", "/v1/participants/ana/rename", { body: { new_external_id: "ana" } }),
      status: 422,
      code: "validation_failed",
      message: "body.new_external_id",
    },
    {
      row: "422 redemption of a reward with no price",
      send: () => api.request("POST", "/v1/redemptions", { body: { participant: "ana", reward: "coins-50" } }),
      status: 422,
      code: "reward_has_no_price",
    },
    {
      row: "500 token signing secret missing",
      send: () => api.request("POST", "/v1/participants/ana/token", { key: unsigned.keys.live }),
      status: 500,
      code: "signing_secret_missing",
    },
  ];

  it.each(seedTable)("seed error table: $row", async ({ send, status, code, message }) => {
    const response = await send();
    expectError(response, status, code, message);
    expect(response.headers.get("X-Request-Id")).toMatch(REQUEST_ID);
  });

  // What the HTTP layer refuses before any use case runs.
  const httpTable: ErrorRow[] = [
    { row: "unknown route", send: () => api.request("GET", "/v1/nothing-here"), status: 404, code: "route_not_found" },
    { row: "unknown route outside /v1", send: () => api.request("POST", "/", { key: null }), status: 404, code: "route_not_found" },
    { row: "wrong method", send: () => api.request("DELETE", "/v1/participants/ana"), status: 405, code: "method_not_allowed" },
    { row: "malformed JSON", send: () => api.request("POST", "/v1/participants", { rawBody: '{"external_id": "ana"' }), status: 400, code: "invalid_json" },
    { row: "a JSON scalar instead of an object", send: () => api.request("POST", "/v1/participants", { rawBody: '"ana"' }), status: 400, code: "invalid_json" },
    {
      row: "non-JSON content type",
      send: () => api.request("POST", "/v1/participants", { rawBody: "external_id=ana", headers: { "Content-Type": "application/x-www-form-urlencoded" } }),
      status: 415,
      code: "unsupported_media_type",
    },
    {
      row: "JSON sent as text/plain",
      send: () => api.request("POST", "/v1/participants", { rawBody: '{"external_id":"ana"}', headers: { "Content-Type": "text/plain" } }),
      status: 415,
      code: "unsupported_media_type",
    },
    {
      row: "missing required field",
      send: () => api.request("POST", "/v1/participants", { body: {} }),
      status: 422,
      code: "validation_failed",
      message: "body.external_id",
    },
    {
      row: "unknown body field",
      send: () => api.request("POST", "/v1/participants", { body: { external_id: "ana", nickname: "Aninha" } }),
      status: 422,
      code: "validation_failed",
      message: "body.nickname",
    },
    {
      row: "unknown nested field",
      send: () => api.request("PUT", "/v1/cashback", { body: { welcome: { enabled: true, cap: 10 } } }),
      status: 422,
      code: "validation_failed",
      message: "body.welcome.cap",
    },
    {
      row: "wrong type",
      send: () => api.request("POST", "/v1/participants/ana/token", { body: { ttl_seconds: "900" } }),
      status: 422,
      code: "validation_failed",
      message: "body.ttl_seconds",
    },
    { row: "required body missing", send: () => api.request("POST", "/v1/participants/ana/rename"), status: 422, code: "validation_failed", message: "body" },
    {
      row: "path parameter too long",
      send: () => api.request("GET", `/v1/participants/${"a".repeat(129)}`),
      status: 422,
      code: "validation_failed",
      message: "path.external_id",
    },
    { row: "unknown query parameter", send: () => api.request("GET", "/v1/games?color=red"), status: 422, code: "validation_failed", message: "query.color" },
    {
      row: "query parameter out of range",
      send: () => api.request("GET", "/v1/games?limit=0"),
      status: 422,
      code: "validation_failed",
      message: "query.limit",
    },
  ];

  it.each(httpTable)("$row → $status $code", async ({ send, status, code, message }) => {
    const response = await send();
    expectError(response, status, code, message);
    expect(response.headers.get("X-Request-Id")).toMatch(REQUEST_ID);
  });

  it("names the allowed methods on 405", async () => {
    const response = await api.request("PUT", "/v1/redemptions");
    expectError(response, 405, "method_not_allowed");
    expect(response.headers.get("Allow")).toBe("POST");
    // `/v1/events/batch` is also `/v1/events/{id}` (GET): both routes' methods are allowed.
    const batch = await api.request("PUT", "/v1/events/batch");
    expectError(batch, 405, "method_not_allowed");
    expect(batch.headers.get("Allow")?.split(", ").sort()).toEqual(["GET", "HEAD", "POST"]);
    // A path two routes match answers every method either accepts
    // (`/v1/participants/progress` is also `/v1/participants/{external_id}`).
    const ambiguous = await api.request("PUT", "/v1/participants/progress");
    expectError(ambiguous, 405, "method_not_allowed");
    expect(ambiguous.headers.get("Allow")?.split(", ").sort()).toEqual(["GET", "HEAD", "POST"]);
  });

  it("answers 405 and 415 as the contract declares them (ErrorBody, Allow on 405)", async () => {
    const openapi = JSON.parse(readFileSync(new URL("../../generated/openapi.json", import.meta.url), "utf8"));
    const declared = (path: string, method: string) => openapi.paths[path][method].responses;
    // 405 on every operation of a path (with its Allow header), 415 on the ones with a JSON body only.
    expect(declared("/v1/participants/{external_id}", "get")["405"].headers.Allow).toBeDefined();
    expect(declared("/v1/participants", "post")["415"]).toBeDefined();
    expect(declared("/v1/participants/{external_id}", "get")["415"]).toBeUndefined();

    const wrongMethod = await api.request("PUT", "/v1/participants");
    expectError(wrongMethod, 405, "method_not_allowed");
    expect(wrongMethod.headers.get("Allow")).toBe("POST");
    expect(operationValidators.Participants_upsert.responses["405"](wrongMethod.body)).toBe(true);

    const wrongType = await api.request("POST", "/v1/participants", { rawBody: "external_id=ana", headers: { "Content-Type": "text/csv" } });
    expectError(wrongType, 415, "unsupported_media_type");
    expect(operationValidators.Participants_upsert.responses["415"](wrongType.body)).toBe(true);
  });

  it("gives every response its own X-Request-Id: successes, errors, preflights and documents", async () => {
    const responses = [
      await api.request("GET", "/v1/participants/ana"),
      await api.request("GET", "/v1/health", { key: null }),
      await api.request("GET", "/openapi.json", { key: null }),
      await api.request("OPTIONS", "/v1/me", { key: null, headers: { Origin: "http://localhost:5173", "Access-Control-Request-Method": "GET" } }),
      await api.request("GET", "/v1/participants/ana", { key: "cf_test_unknown" }),
    ];
    const ids = responses.map((response) => response.headers.get("X-Request-Id"));
    for (const id of ids) expect(id).toMatch(REQUEST_ID);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it("accepts a body of exactly 1 MiB and refuses one byte more with 413", async () => {
    const atLimit = await api.request("POST", "/v1/participants", { rawBody: jsonOfSize({ external_id: "ana" }, MiB) });
    expect(atLimit.status).toBe(200);
    const over = await api.request("POST", "/v1/participants", { rawBody: jsonOfSize({ external_id: "ana" }, MiB + 1) });
    expectError(over, 413, "payload_too_large");
    expect(over.headers.get("X-Request-Id")).toMatch(REQUEST_ID);
  });

  it.each([
    { path: "/v1/games", body: { games: [{ id: "pgsoft-fortune-tiger", name: "Fortune Tiger" }] } },
    { path: "/v1/events/batch", body: { events: [{ participant: "carla", type: "custom.page_viewed" }] } },
  ])("accepts a body of exactly 5 MiB on POST $path and refuses one byte more with 413", async ({ path, body }) => {
    expect((await api.request("POST", path, { rawBody: jsonOfSize(body, 5 * MiB) })).status).toBe(200);
    expectError(await api.request("POST", path, { rawBody: jsonOfSize(body, 5 * MiB + 1) }), 413, "payload_too_large");
  });

  it("keeps the 1 MiB limit on the other routes even for bodies a large route would take", async () => {
    const draft = jsonOfSize({ name: "Clube" }, 2 * MiB);
    expectError(await api.request("PUT", "/v1/config/draft", { rawBody: draft }), 413, "payload_too_large");
  });

  it("changes nothing when a request is refused", async () => {
    const read = async () => ({
      ana: (await api.request("GET", "/v1/participants/ana")).body,
      bia: (await api.request("GET", "/v1/participants/bia")).body,
      unsignedLive: (await api.request("GET", "/v1/participants/ana", { key: unsigned.keys.live })).status,
      cashback: (await api.request("GET", "/v1/cashback")).body,
      versions: (await api.request("GET", "/v1/config/versions")).body,
    });
    const before = await read();
    expect(before.unsignedLive).toBe(404);

    const refused = [
      // valid display name, invalid e-mail: the whole update is refused
      await api.request("POST", "/v1/participants", { body: { external_id: "ana", display_name: "Ana Nova", email: "not-an-email" } }),
      await api.request("POST", "/v1/participants", { body: { external_id: "ana", display_name: "Ana Nova", tags: ["x".repeat(33)] } }),
      await api.request("POST", "/v1/participants", { rawBody: jsonOfSize({ external_id: "ana", display_name: "Ana Grande" }, MiB + 1) }),
      await api.request("POST", "/v1/participants/ana/rename", { body: { new_external_id: "bia" } }),
      await api.request("POST", "/v1/participants/ana/rename", { body: { new_external_id: "ana nova", merge: true } }),
      // the token route refuses before creating the participant
      await api.request("POST", "/v1/participants/ana/token", { key: unsigned.keys.live }),
      await api.request("PUT", "/v1/cashback", { body: { enabled: true, hour: 24 } }),
      await api.request("PUT", "/v1/cashback", { body: { enabled: true, min_pct: 30, max_pct: 20 } }),
      await api.request("PUT", "/v1/config/draft", { body: { name: "Sem o resto" } }),
      // nothing is spent when the balance does not cover the price
      await api.request("POST", "/v1/redemptions", { body: { participant: "ana", reward: "store-bonus-10" } }),
    ];
    expect(refused.map((response) => response.status)).toEqual([422, 422, 413, 409, 422, 500, 422, 422, 422, 409]);
    expect(await read()).toEqual(before);
  });
});
