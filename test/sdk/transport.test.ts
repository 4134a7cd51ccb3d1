import { afterEach, describe, expect, it } from "vitest";
import { ClubeError } from "../../sdk-shared/src/errors.js";
import { backoffDelayMs, defaultBackoff, isRetryableStatus, retryAfterMs, retryDelayMs } from "../../sdk-node/src/backoff.js";
import { createTransport, isRepeatable, type TransportOptions } from "../../sdk-node/src/transport.js";
import { dropConnection, failure, hang, json, type ScriptedServer, stallBody, startScriptedServer, type Step } from "./scripted-server.js";

describe("backoff", () => {
  it("waits between half and all of an exponentially growing ceiling", () => {
    expect(backoffDelayMs(1, 0, defaultBackoff)).toBe(250);
    expect(backoffDelayMs(1, 0.999999, defaultBackoff)).toBe(500);
    expect(backoffDelayMs(2, 0, defaultBackoff)).toBe(500);
    expect(backoffDelayMs(2, 0.5, defaultBackoff)).toBe(750);
    expect(backoffDelayMs(3, 0.999999, defaultBackoff)).toBe(2000);
  });

  it("never waits longer than the cap", () => {
    expect(backoffDelayMs(5, 0.999999, defaultBackoff)).toBe(8000);
    expect(backoffDelayMs(30, 0.999999, defaultBackoff)).toBe(8000);
    expect(retryDelayMs(1, 0, 60_000, defaultBackoff)).toBe(8000);
  });

  it("stretches the wait to a Retry-After in seconds and ignores other forms", () => {
    expect(retryAfterMs("3")).toBe(3000);
    expect(retryAfterMs(" 2 ")).toBe(2000);
    expect(retryAfterMs("Fri, 14 Mar 2025 18:30:00 GMT")).toBeNull();
    expect(retryAfterMs("-1")).toBeNull();
    expect(retryAfterMs(null)).toBeNull();
    expect(retryDelayMs(1, 0, 3000, defaultBackoff)).toBe(3000);
    expect(retryDelayMs(3, 0.999999, 100, defaultBackoff)).toBe(2000);
  });

  it.each([
    [429, true],
    [500, true],
    [502, true],
    [503, true],
    [599, true],
    [400, false],
    [401, false],
    [404, false],
    [409, false],
    [422, false],
    [428, false],
  ])("status %i is retryable: %s", (status, retryable) => {
    expect(isRetryableStatus(status)).toBe(retryable);
  });

  it("repeats reads and keyed writes only", () => {
    const url = "http://127.0.0.1:1/v1/events";
    expect(isRepeatable(new Request(url))).toBe(true);
    expect(isRepeatable(new Request(url, { method: "POST", body: "{}" }))).toBe(false);
    expect(isRepeatable(new Request(url, { method: "POST", body: "{}", headers: { "Idempotency-Key": "k1" } }))).toBe(true);
    expect(isRepeatable(new Request(url, { method: "DELETE" }))).toBe(false);
  });
});

describe("transport against a local HTTP server", () => {
  let server: ScriptedServer;
  afterEach(() => server?.close());

  function transport(overrides: Partial<TransportOptions> = {}) {
    const waits: number[] = [];
    const sendWith = createTransport({
      fetch: (request) => fetch(request),
      timeoutMs: 2_000,
      maxRetries: 2,
      backoff: defaultBackoff,
      random: () => 0.5,
      sleep: async (ms) => {
        waits.push(ms);
      },
      ...overrides,
    });
    const send = (request: Request) => sendWith(request, {});
    return { send, waits };
  }

  async function serve(...steps: Step[]) {
    server = await startScriptedServer(steps);
    return server;
  }

  it("retries a GET that fails twice with 5xx and returns the third answer", async () => {
    await serve(failure(503, "internal_error", "down"), failure(500, "internal_error", "down"), json(200, { status: "ok" }));
    const { send, waits } = transport();
    const response = await send(new Request(`${server.url}/v1/health`));
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: "ok" });
    expect(server.requests).toHaveLength(3);
    expect(waits).toEqual([375, 750]);
  });

  it("repeats a keyed POST with the same key and the same body on every attempt", async () => {
    await serve(
      failure(502, "internal_error", "bad gateway"),
      failure(503, "internal_error", "down"),
      json(200, { event_id: "evt_1", duplicate: false, effects: [] }),
    );
    const { send } = transport();
    const body = JSON.stringify({ participant: "user_8412", type: "deposit.confirmed", amount: 50 });
    const response = await send(
      new Request(`${server.url}/v1/events`, { method: "POST", body, headers: { "Idempotency-Key": "dep_991", "Content-Type": "application/json" } }),
    );
    expect(response.status).toBe(200);
    expect(server.requests.map((r) => r.headers["idempotency-key"])).toEqual(["dep_991", "dep_991", "dep_991"]);
    expect(server.requests.map((r) => r.body)).toEqual([body, body, body]);
  });

  it("does not repeat a POST without an idempotency key", async () => {
    await serve(failure(503, "internal_error", "down"), json(201, { id: "rfl_1", status: "pending" }));
    const { send, waits } = transport();
    const response = await send(new Request(`${server.url}/v1/referrals`, { method: "POST", body: "{}" }));
    expect(response.status).toBe(503);
    expect(server.requests).toHaveLength(1);
    expect(waits).toEqual([]);
  });

  it("does not repeat client errors", async () => {
    await serve(failure(404, "not_found", "No participant user_1"), json(200, {}));
    const { send } = transport();
    expect((await send(new Request(`${server.url}/v1/participants/user_1`))).status).toBe(404);
    expect(server.requests).toHaveLength(1);
  });

  it("gives up after maxRetries and returns the last answer", async () => {
    await serve(failure(500, "internal_error", "first"), failure(500, "internal_error", "second"), failure(500, "internal_error", "third"), json(200, {}));
    const { send } = transport({ maxRetries: 2 });
    const response = await send(new Request(`${server.url}/v1/deliveries`));
    expect(response.status).toBe(500);
    expect(await response.json()).toEqual({ error: { code: "internal_error", message: "third" } });
    expect(server.requests).toHaveLength(3);
  });

  it("with maxRetries 0 sends once", async () => {
    await serve(failure(503, "internal_error", "down"), json(200, {}));
    const { send } = transport({ maxRetries: 0 });
    expect((await send(new Request(`${server.url}/v1/deliveries`))).status).toBe(503);
    expect(server.requests).toHaveLength(1);
  });

  it("waits as long as a 429's Retry-After asks (within the cap)", async () => {
    await serve(failure(429, "rate_limited", "slow down", { "Retry-After": "3" }), json(200, { data: [] }));
    const { send, waits } = transport();
    expect((await send(new Request(`${server.url}/v1/games`))).status).toBe(200);
    expect(waits).toEqual([3000]);
  });

  it("turns a dropped connection into network_error after retrying", async () => {
    await serve(dropConnection);
    const { send } = transport();
    const error = await send(new Request(`${server.url}/v1/health`)).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ClubeError);
    expect(error).toMatchObject({ code: "network_error", status: null, requestId: null });
    expect(server.requests).toHaveLength(3);
  });

  it("recovers when the connection drops once", async () => {
    await serve(dropConnection, json(200, { status: "ok" }));
    const { send } = transport();
    expect((await send(new Request(`${server.url}/v1/health`))).status).toBe(200);
  });

  it("turns a server that never answers into timeout, per attempt", async () => {
    await serve(hang);
    const { send } = transport({ timeoutMs: 100, maxRetries: 1 });
    const started = performance.now();
    const error = await send(new Request(`${server.url}/v1/health`)).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: "timeout", status: null });
    expect((error as Error).message).toContain("100 ms");
    expect(server.requests).toHaveLength(2);
    // Bounded only to show it did not wait for the server: two attempts of 0.1 s, with room for a loaded machine.
    expect(performance.now() - started).toBeLessThan(10_000);
  });

  it("counts a body that stalls after the headers as a timeout, then retries", async () => {
    await serve(stallBody, json(200, { status: "ok" }));
    // 1 s, not less: the retry's prompt answer must arrive within it even on a loaded machine.
    const { send } = transport({ timeoutMs: 1_000 });
    const response = await send(new Request(`${server.url}/v1/health`));
    expect(await response.json()).toEqual({ status: "ok" });
    expect(server.requests).toHaveLength(2);
  });
});
