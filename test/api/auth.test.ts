import { randomBytes } from "node:crypto";
import { SignJWT, decodeJwt } from "jose";
import { afterAll, beforeAll, beforeEach, expect, it } from "vitest";
import { operations } from "../../generated/operations.js";
import { ApiKey } from "../../server/src/db/entities/index.js";
import { expectError, manualClock, type TestApi, type TestClub } from "../support/api.js";
import { openTestClub } from "../support/club.js";
import { describeEachDatabase } from "../support/databases.js";

const T0 = new Date("2026-03-14T18:00:00.000Z");
const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000);

/** A request to an operation with every path parameter filled, e.g. `POST /v1/participants/sample/rename`. */
const sampleRequest = (op: (typeof operations)[number]) => ({
  operationId: op.operationId,
  method: op.method.toUpperCase(),
  path: op.path.replace(/\{[^}]+\}/g, "sample"),
  documents403: "403" in op.responseHeaders,
});
const acceptsToken = (security: readonly (readonly string[])[]) => security.some((alt) => alt.includes("ParticipantTokenAuth"));

const securedOperations = operations.filter((op) => op.security.length > 0);
const serverOperations = securedOperations.filter((op) => !acceptsToken(op.security));

/** The token with its payload replaced (`change` edits the claims); the original signature is kept. */
function withClaims(token: string, change: (claims: Record<string, unknown>) => void): string {
  const [header, payload, signature] = token.split(".");
  const claims = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
  change(claims);
  return [header, Buffer.from(JSON.stringify(claims)).toString("base64url"), signature].join(".");
}

/** The token with one character in the middle of its signature changed (every bit of a middle character is significant). */
function withFlippedSignature(token: string): string {
  const [header, payload, signature] = token.split(".");
  const i = Math.floor(signature.length / 2);
  const flipped = signature[i] === "A" ? "B" : "A";
  return [header, payload, signature.slice(0, i) + flipped + signature.slice(i + 1)].join(".");
}

const ALLOWED_ORIGIN = "http://localhost:5173"; // listed in the demo configuration's allowedOrigins
const OTHER_ORIGIN = "https://phishing.example.com";

describeEachDatabase("API authentication", (kind) => {
  const clock = manualClock(T0);
  let api: TestApi;
  let other: TestClub;

  beforeAll(async () => {
    api = await openTestClub(kind, { api: true, clock });
    other = await api.createOtherClub();
    for (const external_id of ["ana", "x".repeat(128)]) {
      expect((await api.request("POST", "/v1/participants", { body: { external_id } })).status).toBe(200);
    }
  });
  afterAll(() => api?.close());
  beforeEach(() => clock.set(T0));

  async function tokenFor(externalId: string, options: { key?: string; ttl_seconds?: number } = {}): Promise<string> {
    const body = options.ttl_seconds === undefined ? undefined : { ttl_seconds: options.ttl_seconds };
    const response = await api.request("POST", `/v1/participants/${externalId}/token`, { key: options.key, body });
    expect(response.status).toBe(200);
    return response.body.token;
  }

  it.each(securedOperations.map(sampleRequest))("$operationId ($method $path) answers 401 without a key", async ({ method, path }) => {
    expectError(await api.request(method, path, { key: null }), 401, "unauthorized");
  });

  it.each([
    ["GET", "/v1/health"],
    ["GET", "/openapi.json"],
  ])("%s %s needs no key", async (method, path) => {
    expect((await api.request(method, path, { key: null })).status).toBe(200);
  });

  it("refuses unknown, malformed and revoked keys with 401", async () => {
    const revoked = await api.createOtherClub();
    await api.db.em().nativeUpdate(ApiKey, { clubId: revoked.clubId, env: "test" }, { revokedAt: T0 });
    const refused = [
      { headers: { Authorization: `Bearer cf_test_${"A".repeat(32)}` } }, // well formed, never issued
      { headers: { Authorization: `Bearer ${api.keys.test.slice(0, -1)}` } }, // truncated
      { headers: { Authorization: `Bearer ${api.keys.test.replace("cf_test_", "cf_prod_")}` } },
      { headers: { Authorization: "Bearer garbage" } },
      { headers: { Authorization: `Basic ${Buffer.from(`${api.keys.test}:`).toString("base64")}` } },
      { headers: { Authorization: api.keys.test } }, // without the Bearer scheme
      { headers: { Authorization: `Bearer ${revoked.keys.test}` } },
    ];
    for (const { headers } of refused) {
      expectError(await api.request("GET", "/v1/participants/ana", { key: null, headers }), 401, "unauthorized");
    }
    expect((await api.request("GET", "/v1/key", { key: revoked.keys.live })).status).toBe(200);
  });

  it("selects the environment by the key: a participant of test does not exist in live", async () => {
    const test = await api.request("GET", "/v1/participants/ana");
    expect(test.status).toBe(200);
    expectError(await api.request("GET", "/v1/participants/ana", { key: api.keys.live }), 404, "not_found");

    const live = await api.request("POST", "/v1/participants", { key: api.keys.live, body: { external_id: "ana", display_name: "Ana (live)" } });
    expect(live.status).toBe(200);
    expect(live.body.id).not.toBe(test.body.id);
    expect((await api.request("GET", "/v1/participants/ana")).body.display_name).toBeNull();
  });

  it("answers 404, never 403, to another club's key on participant routes", async () => {
    const key = other.keys.test;
    expectError(await api.request("GET", "/v1/participants/ana", { key }), 404, "not_found");
    expectError(await api.request("GET", "/v1/participants/ana/progress", { key }), 404, "not_found");
    expectError(await api.request("POST", "/v1/participants/ana/rename", { key, body: { new_external_id: "ana2" } }), 404, "not_found");
    expectError(await api.request("GET", "/v1/me", { key, participant: "ana" }), 404, "not_found");
    const batch = await api.request("POST", "/v1/participants/progress", { key, body: { external_ids: ["ana"] } });
    expect(batch).toMatchObject({ status: 200, body: { items: [] } });
  });

  it("issues a token valid for 900 seconds by default, creating the participant when absent", async () => {
    expectError(await api.request("GET", "/v1/participants/novo"), 404, "not_found");
    const response = await api.request("POST", "/v1/participants/novo/token");
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      token: expect.stringMatching(/^[\w-]+\.[\w-]+\.[\w-]+$/),
      expires_at: at(900).toISOString(),
      participant_id: expect.stringMatching(/^par_/),
      level: { number: 1, name: "Nível 1", badge_url: null, color: "#CD7F32" },
      xp: { current: 0, required: 1000, total: 0, progress: 0 },
    });
    const created = await api.request("GET", "/v1/participants/novo");
    expect(created.status).toBe(200);
    expect(created.body.id).toBe(response.body.participant_id);
  });

  it.each([
    [60, 200],
    [86400, 200],
    [59, 422],
    [86401, 422],
  ])("ttl_seconds %i → %i", async (ttl_seconds, status) => {
    const externalId = `ttl-${ttl_seconds}`;
    const response = await api.request("POST", `/v1/participants/${externalId}/token`, { body: { ttl_seconds } });
    if (status === 200) {
      expect(response.status).toBe(200);
      expect(response.body.expires_at).toBe(at(ttl_seconds).toISOString());
    } else {
      expectError(response, 422, "validation_failed", "body.ttl_seconds");
      // refused before anything happened: the participant was not created
      expectError(await api.request("GET", `/v1/participants/${externalId}`), 404, "not_found");
    }
  });

  it("accepts the token on /v1/me and /v1/me/progress, for the token's participant", async () => {
    const token = await tokenFor("ana");
    const profile = await api.request("GET", "/v1/me", { token });
    expect(profile.status).toBe(200);
    expect(profile.body).toEqual((await api.request("GET", "/v1/participants/ana")).body);
    const progress = await api.request("GET", "/v1/me/progress", { token });
    expect(progress.status).toBe(200);
    expect(progress.body).toEqual((await api.request("GET", "/v1/participants/ana/progress")).body);
  });

  it("binds the token to its environment: a live token acts for the live participant", async () => {
    const token = await tokenFor("ana", { key: api.keys.live });
    const profile = await api.request("GET", "/v1/me", { token });
    expect(profile.status).toBe(200);
    expect(profile.body.id).toBe((await api.request("GET", "/v1/participants/ana", { key: api.keys.live })).body.id);
  });

  it("accepts the token until its expiry and refuses it from then on", async () => {
    const token = await tokenFor("ana", { ttl_seconds: 60 });
    clock.set(at(59));
    expect((await api.request("GET", "/v1/me", { token })).status).toBe(200);
    clock.set(at(60));
    expectError(await api.request("GET", "/v1/me", { token }), 401, "invalid_token");
    expectError(await api.request("GET", "/v1/me/progress", { token }), 401, "invalid_token");
  });

  it("refuses tampered tokens and tokens of another club or environment with 401 invalid_token", async () => {
    const token = await tokenFor("ana");
    const foreignSecret = new Uint8Array(randomBytes(32));
    const forged = [
      withFlippedSignature(token),
      withClaims(token, (claims) => (claims.sub = "x".repeat(128))), // another participant, same signature
      withClaims(token, (claims) => (claims.env = "live")), // the live secret does not verify a test signature
      withClaims(token, (claims) => (claims.club = other.clubId)),
      await new SignJWT(decodeJwt(token)).setProtectedHeader({ alg: "HS256", typ: "JWT" }).sign(foreignSecret),
      `${token.split(".").slice(0, 2).join(".")}.`, // signature removed
    ];
    for (const candidate of forged) {
      expectError(await api.request("GET", "/v1/me", { token: candidate }), 401, "invalid_token");
    }
    expect((await api.request("GET", "/v1/me", { token })).status).toBe(200);
  });

  // The contract documents 403 `secret_key_required` on the secret-key-only
  // operations (rename and the management routes) and 401 on the other server routes.
  it.each(serverOperations.map(sampleRequest))("$operationId ($method $path) refuses a participant token", async ({ method, path, documents403 }) => {
    const response = await api.request(method, path, { token: await tokenFor("ana") });
    if (documents403) expectError(response, 403, "secret_key_required");
    else expectError(response, 401, "unauthorized");
  });

  it("headless mode: the secret key with X-Participant acts for that participant on /v1/me", async () => {
    const profile = await api.request("GET", "/v1/me", { participant: "ana" });
    expect(profile.status).toBe(200);
    expect(profile.body).toEqual((await api.request("GET", "/v1/participants/ana")).body);
    expect((await api.request("GET", "/v1/me/progress", { participant: "ana" })).status).toBe(200);

    expectError(await api.request("GET", "/v1/me"), 401, "unauthorized");
    expectError(await api.request("GET", "/v1/me", { participant: "nobody" }), 404, "not_found");
    expectError(await api.request("GET", "/v1/me", { key: null, participant: "ana" }), 401, "unauthorized");
  });

  it("headless mode: X-Participant takes an external id of up to 128 characters", async () => {
    expect((await api.request("GET", "/v1/me", { participant: "x".repeat(128) })).status).toBe(200);
    expectError(await api.request("GET", "/v1/me", { participant: "x".repeat(129) }), 401, "unauthorized");
  });

  it("answers the CORS preflight of /v1/me with the allowed methods and headers", async () => {
    const response = await api.request("OPTIONS", "/v1/me", {
      key: null,
      headers: { Origin: ALLOWED_ORIGIN, "Access-Control-Request-Method": "GET", "Access-Control-Request-Headers": "authorization" },
    });
    expect(response.status).toBe(204);
    expect(response.headers.get("Access-Control-Allow-Origin")).toBe(ALLOWED_ORIGIN);
    expect(response.headers.get("Access-Control-Allow-Methods")).toContain("GET");
    const allowedHeaders = response.headers.get("Access-Control-Allow-Headers")!.toLowerCase().split(/,\s*/);
    expect(allowedHeaders).toEqual(expect.arrayContaining(["authorization", "content-type", "x-participant"]));
  });

  it("lets only the club's allowed origins read /v1/me", async () => {
    const token = await tokenFor("ana");
    const allowed = await api.request("GET", "/v1/me", { token, headers: { Origin: ALLOWED_ORIGIN } });
    expect(allowed.status).toBe(200);
    expect(allowed.headers.get("Access-Control-Allow-Origin")).toBe(ALLOWED_ORIGIN);
    const unlisted = await api.request("GET", "/v1/me", { token, headers: { Origin: OTHER_ORIGIN } });
    expect(unlisted.status).toBe(200);
    expect(unlisted.headers.get("Access-Control-Allow-Origin")).toBeNull();
  });

  it("never answers CORS on server routes", async () => {
    const read = await api.request("GET", "/v1/participants/ana", { headers: { Origin: ALLOWED_ORIGIN } });
    expect(read.status).toBe(200);
    const preflight = await api.request("OPTIONS", "/v1/participants", {
      key: null,
      headers: { Origin: ALLOWED_ORIGIN, "Access-Control-Request-Method": "POST" },
    });
    for (const response of [read, preflight]) {
      expect(response.headers.get("Access-Control-Allow-Origin")).toBeNull();
      expect(response.headers.get("Access-Control-Allow-Headers")).toBeNull();
    }
  });
});
