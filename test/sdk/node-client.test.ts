// @clube/node against a local node:http server that misbehaves on purpose:
// retries, idempotency keys, timeouts, error mapping, authentication headers.
import { afterEach, describe, expect, it } from "vitest";
import { Clube, ClubeError, verifyWebhook, type ClubeOptions } from "../../sdk-node/src/index.js";
import { dropConnection, failure, hang, json, type ScriptedServer, startScriptedServer, type Step } from "./scripted-server.js";

const apiKey = "cf_test_4eC39HqLyjWDarjtT1zdp7dc";
const eventResult = { event_id: "evt_01JQ5C2P7R3Y5Z2C", duplicate: false, effects: [{ type: "xp_granted", amount: 150, rule_id: "xp-por-deposito" }] };
const deposit = { participant: "user_8412", type: "deposit.confirmed", amount: 150, currency: "BRL" };
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

let server: ScriptedServer;
afterEach(() => server?.close());

async function clubeAgainst(steps: Step[], options: Partial<ClubeOptions> = {}) {
  server = await startScriptedServer(steps);
  const waits: number[] = [];
  const clube = new Clube({
    apiKey,
    baseUrl: server.url,
    retry: { random: () => 0, sleep: async (ms) => void waits.push(ms) },
    ...options,
  });
  return { clube, waits };
}

const header = (name: string) => server.requests.map((r) => r.headers[name]);

describe("events.send", () => {
  it("retries after two failures with the same Idempotency-Key and body, and returns the result", async () => {
    const { clube, waits } = await clubeAgainst([failure(503, "internal_error", "down"), dropConnection, json(200, eventResult)]);
    expect(await clube.events.send(deposit)).toEqual(eventResult);
    const keys = header("idempotency-key");
    expect(keys).toHaveLength(3);
    expect(keys[0]).toMatch(UUID);
    expect(new Set(keys).size).toBe(1);
    expect(new Set(server.requests.map((r) => r.body))).toEqual(new Set([JSON.stringify(deposit)]));
    expect(waits).toEqual([250, 500]);
  });

  it("sends no key of its own for an event with an id (the id is the key), and the caller's key when given", async () => {
    const { clube } = await clubeAgainst([json(200, eventResult)]);
    await clube.events.send({ ...deposit, id: "dep_99812" });
    await clube.events.send({ ...deposit, id: "dep_99812" }, { idempotencyKey: "pix-e2e-77120" });
    expect(header("idempotency-key")).toEqual([undefined, "pix-e2e-77120"]);
  });

  it("retries an event with an id without a key: the server counts a repeated id once", async () => {
    const { clube, waits } = await clubeAgainst([failure(503, "internal_error", "down"), json(200, eventResult)]);
    expect(await clube.events.send({ ...deposit, id: "dep_99813" })).toEqual(eventResult);
    expect(header("idempotency-key")).toEqual([undefined, undefined]);
    expect(waits).toEqual([250]);
  });

  it("draws a new key per call when neither is given", async () => {
    const { clube } = await clubeAgainst([json(200, eventResult)]);
    await clube.events.send(deposit);
    await clube.events.send(deposit);
    const [first, second] = header("idempotency-key");
    expect(first).not.toBe(second);
  });

  it("with async: true sends Prefer: respond-async and returns the 202 body", async () => {
    const queued = { queued: true, event_ids: ["evt_01JQ5C3A1B2C3D4E"] };
    const { clube } = await clubeAgainst([json(202, queued, { "Preference-Applied": "respond-async" })]);
    expect(await clube.events.send(deposit, { async: true })).toEqual(queued);
    expect(header("prefer")).toEqual(["respond-async"]);
  });

  it("sends no Prefer header without async", async () => {
    const { clube } = await clubeAgainst([json(200, eventResult)]);
    await clube.events.send(deposit);
    expect(header("prefer")).toEqual([undefined]);
  });

  it("gives up after maxRetries and throws the last answer's error", async () => {
    const { clube } = await clubeAgainst([failure(500, "internal_error", "An unexpected error occurred")], { maxRetries: 1 });
    const error = await clube.events.send(deposit).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClubeError);
    expect(error).toMatchObject({ status: 500, code: "internal_error", requestId: "req_test_1" });
    expect(server.requests).toHaveLength(2);
  });
});

describe("retry policy per operation", () => {
  it("does not retry a batch (it carries no idempotency key)", async () => {
    const { clube } = await clubeAgainst([failure(503, "internal_error", "down"), json(200, { results: [] })]);
    await expect(clube.events.sendBatch({ events: [{ ...deposit, id: "dep_1" }] })).rejects.toMatchObject({ status: 503 });
    expect(server.requests).toHaveLength(1);
    expect(header("idempotency-key")).toEqual([undefined]);
  });

  it("retries a redemption under a generated key, and keeps the caller's key", async () => {
    const redemption = { id: "red_01JQ5F4H6J8K2M4N", duplicate: false };
    const { clube } = await clubeAgainst([failure(502, "internal_error", "bad gateway"), json(200, redemption)]);
    expect(await clube.redemptions.create({ participant: "user_8412", reward: "giros-10" })).toEqual(redemption);
    const [first, second] = header("idempotency-key");
    expect(first).toMatch(UUID);
    expect(second).toBe(first);
    await clube.redemptions.create({ participant: "user_8412", reward: "giros-10" }, { idempotencyKey: "resgate-8412-0001" });
    expect(header("idempotency-key")[2]).toBe("resgate-8412-0001");
  });

  it("retries reads after 429 and 5xx", async () => {
    const list = { deliveries: [] };
    const { clube } = await clubeAgainst([failure(429, "rate_limited", "slow down"), failure(503, "internal_error", "down"), json(200, list)]);
    expect(await clube.deliveries.list({ status: "pending" })).toEqual(list);
    expect(server.requests.map((r) => r.url)).toEqual(Array(3).fill("/v1/deliveries?status=pending"));
  });

  it("does not retry an unkeyed write such as a delivery confirmation", async () => {
    const { clube } = await clubeAgainst([failure(503, "internal_error", "down"), json(200, {})]);
    await expect(clube.deliveries.confirm("dlv_01JQ5C2P9T5A7B4E")).rejects.toMatchObject({ status: 503 });
    expect(server.requests).toHaveLength(1);
  });
});

describe("timeouts and network failures", () => {
  it("throws timeout when no answer arrives within timeoutMs, after retrying", async () => {
    const { clube } = await clubeAgainst([hang], { timeoutMs: 150, maxRetries: 1 });
    const error = await clube.participants.get("user_8412").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClubeError);
    expect(error).toMatchObject({ code: "timeout", status: null, requestId: null });
    expect(server.requests).toHaveLength(2);
  });

  it("throws network_error when nothing listens", async () => {
    server = await startScriptedServer([json(200, {})]);
    const baseUrl = server.url;
    await server.close();
    const clube = new Clube({ apiKey, baseUrl, maxRetries: 1, retry: { sleep: async () => {} } });
    await expect(clube.key.get()).rejects.toMatchObject({ code: "network_error", status: null });
  });
});

describe("errors", () => {
  it("carries status, code, message, request id and the raw body", async () => {
    const body = { error: { code: "already_closed", message: "Delivery dlv_01JQ5D7K2M4N6P8Q is already failed" } };
    const { clube } = await clubeAgainst([json(409, body, { "X-Request-Id": "req_8HfK2a" })]);
    const error = await clube.deliveries.confirm("dlv_01JQ5D7K2M4N6P8Q", {}).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClubeError);
    expect(error).toMatchObject({ name: "ClubeError", status: 409, code: "already_closed", message: body.error.message, requestId: "req_8HfK2a", raw: body });
  });

  it("reports an answer without the error body as unexpected_response", async () => {
    const { clube } = await clubeAgainst([
      (res) => {
        res.writeHead(404, { "Content-Type": "text/html" });
        res.end("<html><body>Not Found</body></html>");
      },
    ]);
    await expect(clube.participants.get("user_8412")).rejects.toMatchObject({
      status: 404,
      code: "unexpected_response",
      requestId: null,
      raw: "<html><body>Not Found</body></html>",
    });
  });

  it("reports a 2xx body that is not JSON as unexpected_response", async () => {
    const { clube } = await clubeAgainst([
      (res) => {
        res.writeHead(200, { "Content-Type": "application/json" });
        res.end("{truncated");
      },
    ]);
    await expect(clube.key.get()).rejects.toMatchObject({ code: "unexpected_response" });
  });

  it("requires an API key", () => {
    expect(() => new Clube({ apiKey: "" })).toThrow(TypeError);
  });
});

describe("authentication and addressing", () => {
  it("sends the secret key as a bearer token to the configured base URL", async () => {
    const { clube } = await clubeAgainst([json(200, { id: "par_01JQ3Z8K4M2W6T9V" })]);
    await clube.participants.get("user 8412/ç");
    expect(server.requests[0]).toMatchObject({ method: "GET", url: "/v1/participants/user%208412%2F%C3%A7" });
    expect(header("authorization")).toEqual([`Bearer ${apiKey}`]);
  });

  it("defaults the base URL to http://localhost:3000", async () => {
    const urls: string[] = [];
    const clube = new Clube({ apiKey, fetch: async (request) => (urls.push(request.url), Response.json({ status: "ok" })) });
    await clube.health.get();
    expect(urls).toEqual(["http://localhost:3000/v1/health"]);
  });

  it("does not send the key to the public health route", async () => {
    const { clube } = await clubeAgainst([json(200, { status: "ok" })]);
    await clube.health.get();
    expect(header("authorization")).toEqual([undefined]);
  });

  it("headless mode sends the key plus X-Participant and keys the wheel spin", async () => {
    const spin = { spin_id: "spn_01JQ6A", duplicate: false };
    const { clube } = await clubeAgainst([failure(503, "internal_error", "down"), json(200, spin)]);
    expect(await clube.me("user_8412").spin()).toEqual(spin);
    expect(header("x-participant")).toEqual(["user_8412", "user_8412"]);
    expect(header("authorization")).toEqual([`Bearer ${apiKey}`, `Bearer ${apiKey}`]);
    const [first, second] = header("idempotency-key");
    expect(first).toMatch(UUID);
    expect(second).toBe(first);
  });

  it("exposes the webhook verifier on the client", () => {
    expect(new Clube({ apiKey }).webhooks.verify).toBe(verifyWebhook);
  });
});
