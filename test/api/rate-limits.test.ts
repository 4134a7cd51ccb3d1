import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { operationValidators } from "../../generated/validators.js";
import { createApp } from "../../server/src/app.js";
import { describeRateLimits, rateLimitsFromEnv, routeClassOf, DEFAULT_RATE_LIMITS, type RateLimits } from "../../server/src/http/rate-limit.js";
import { openServices, type Services } from "../../server/src/services.js";
import { readSettings } from "../../server/src/settings.js";
import { type ApiResponse, type TestApi, type TestClub } from "../support/api.js";
import { openTestClub } from "../support/club.js";

/**
 * The rate limits with small budgets configured for the test (the defaults are
 * sized far above the suite's traffic). The limiter is in memory and
 * independent of the database, so one SQLite-backed server per scenario is
 * enough. Windows are long (10 min) so a loaded machine never sees one reset
 * mid-test.
 */
const WINDOW = 600;
const SMALL: RateLimits = {
  // One budget for all of a key's routes (CLUBE_RATE_LIMIT_KEY); the classes are tested below.
  apiKey: { points: 12, seconds: WINDOW },
  keyClasses: DEFAULT_RATE_LIMITS.keyClasses,
  participant: { points: 3, seconds: WINDOW },
  failedAuth: { points: 3, seconds: WINDOW },
};

function expectRateLimited(response: ApiResponse, limit: number): void {
  expect(response.status).toBe(429);
  expect(response.body.error.code).toBe("rate_limited");
  const retryAfter = Number(response.headers.get("Retry-After"));
  expect(Number.isInteger(retryAfter)).toBe(true);
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(WINDOW);
  expect(response.headers.get("RateLimit-Limit")).toBe(String(limit));
  expect(response.headers.get("RateLimit-Remaining")).toBe("0");
  expect(response.headers.get("RateLimit-Reset")).toBe(String(retryAfter));
}

describe("rate limits per API key and per participant token", () => {
  let api: TestApi;
  let other: TestClub;
  let tokens: Record<string, string>;

  beforeAll(async () => {
    api = await openTestClub("sqlite", { api: true, rateLimits: SMALL });
    other = await api.createOtherClub();
    tokens = {};
    // Four requests of the test key's budget of 12.
    for (const external_id of ["ana", "bia"]) {
      expect((await api.request("POST", "/v1/participants", { body: { external_id } })).status).toBe(200);
      const issued = await api.request("POST", `/v1/participants/${external_id}/token`);
      expect(issued.status).toBe(200);
      tokens[external_id] = issued.body.token;
    }
  });
  afterAll(() => api?.close());

  it("answers a burst over the key's budget with 429 rate_limited and Retry-After; another key keeps its own budget", async () => {
    const first = await api.request("GET", "/v1/participants/ana");
    expect(first.status).toBe(200);
    expect(first.headers.get("RateLimit-Limit")).toBe("12");
    expect(first.headers.get("RateLimit-Remaining")).toBe("7");
    expect(Number(first.headers.get("RateLimit-Reset"))).toBeGreaterThanOrEqual(1);

    const burst = await Promise.all(Array.from({ length: 12 }, () => api.request("GET", "/v1/participants/ana")));
    expect(burst.filter((r) => r.status === 200)).toHaveLength(7);
    const refused = burst.filter((r) => r.status !== 200);
    expect(refused).toHaveLength(5);
    for (const response of refused) expectRateLimited(response, 12);

    // The contract declares the 429 with these headers and the error body.
    expect(operationValidators.Participants_get.responses["429"](refused[0].body)).toBe(true);

    // Headless mode spends the same key's budget.
    expectRateLimited(await api.request("GET", "/v1/me", { participant: "ana" }), 12);

    // The other club's key (and this club's live key) are untouched.
    const elsewhere = await api.request("GET", "/v1/participants/ana", { key: other.keys.test });
    expect(elsewhere.status).toBe(404);
    expect(elsewhere.headers.get("RateLimit-Remaining")).toBe("11");
    expect((await api.request("GET", "/v1/participants/ana", { key: api.keys.live })).status).toBe(404);
  });

  it("limits each participant token on its own", async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 4; i++) {
      const response = await api.request("GET", "/v1/me", { token: tokens.ana });
      statuses.push(response.status);
      if (response.status === 429) expectRateLimited(response, 3);
    }
    expect(statuses).toEqual([200, 200, 200, 429]);
    expect((await api.request("GET", "/v1/me", { token: tokens.bia })).status).toBe(200);
  });
});

describe("rate limit of rejected credentials per source address", () => {
  let api: TestApi;

  beforeAll(async () => {
    api = await openTestClub("sqlite", { api: true, rateLimits: SMALL });
  });
  afterAll(() => api?.close());

  it("counts wrong keys and tokens, not missing credentials, then refuses the address with 429", async () => {
    // Missing or malformed credentials are mistakes, not guesses: not counted.
    for (let i = 0; i < 5; i++) expect((await api.request("GET", "/v1/participants/ana", { key: null })).status).toBe(401);
    expect((await api.request("GET", "/v1/participants/ana", { key: "nope" })).status).toBe(401);

    expect((await api.request("GET", "/v1/participants/ana", { key: "cf_test_guess1" })).status).toBe(401);
    expect((await api.request("GET", "/v1/participants/ana", { key: "cf_live_guess2" })).status).toBe(401);
    expect((await api.request("GET", "/v1/me", { token: "a.b.c" })).body.error.code).toBe("invalid_token");

    // The address used its 3 attempts: even the right key is refused until the window ends.
    expectRateLimited(await api.request("GET", "/v1/participants/ana", { key: "cf_test_guess3" }), 3);
    expectRateLimited(await api.request("GET", "/v1/participants/ana"), 3);
    // Public routes stay open.
    expect((await api.request("GET", "/openapi.json", { key: null })).status).toBe(200);
  });
});

describe("the source address of the failed-authentication limit", () => {
  const guess = (api: TestApi, forwardedFor: string) =>
    api.request("GET", "/v1/participants/ana", { key: `cf_test_guess${forwardedFor.replace(/\W/g, "")}`, headers: { "X-Forwarded-For": forwardedFor } });

  describe("without CLUBE_TRUST_PROXY", () => {
    let api: TestApi;
    beforeAll(async () => {
      api = await openTestClub("sqlite", { api: true, rateLimits: SMALL, env: { CLUBE_TRUST_PROXY: "" } });
    });
    afterAll(() => api?.close());

    it("ignores X-Forwarded-For: a forged header per attempt does not escape the limit", async () => {
      for (const forged of ["10.0.0.1", "10.0.0.2", "10.0.0.3"]) expect((await guess(api, forged)).status).toBe(401);
      expectRateLimited(await guess(api, "10.0.0.4"), 3);
    });
  });

  describe("with CLUBE_TRUST_PROXY=1 (one proxy in front)", () => {
    let api: TestApi;
    beforeAll(async () => {
      api = await openTestClub("sqlite", { api: true, rateLimits: SMALL, env: { CLUBE_TRUST_PROXY: "1" } });
    });
    afterAll(() => api?.close());

    it("counts per address the proxy appended (the right-most entry), whatever the client put before it", async () => {
      // Each client address gets its own budget...
      for (const client of ["10.0.0.1", "10.0.0.2", "10.0.0.3", "10.0.0.4"]) expect((await guess(api, client)).status).toBe(401);
      // ...and a client prepending forged entries is still counted by the address the proxy saw.
      for (const forged of ["1.1.1.1", "2.2.2.2"]) expect((await guess(api, `${forged}, 10.0.0.9`)).status).toBe(401);
      expect((await guess(api, "3.3.3.3, 10.0.0.9")).status).toBe(401);
      expectRateLimited(await guess(api, "4.4.4.4, 10.0.0.9"), 3);
      expect((await guess(api, "10.0.0.8")).status).toBe(401);
    });
  });
});

/** A second app (its own limiter and Redis client) over the same database, as a second `clube serve` process would be. */
async function secondInstance(api: TestApi, env: Record<string, string>, rateLimits: RateLimits): Promise<{ url: string; close(): Promise<void> }> {
  const services: Services = await openServices(readSettings({ ...process.env, ...env, PORT: "0" }), { db: api.db });
  const app = await createApp(services, { validateResponses: true, rateLimits });
  const server: Server = createServer(app.callback());
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      await services.close();
    },
  };
}

describe("rate limits shared by two instances through Redis (CLUBE_REDIS_URL)", () => {
  // A namespace of this run's own: other suites and runs sharing the Redis never touch these keys.
  const env = {
    CLUBE_REDIS_URL: process.env.CLUBE_TEST_REDIS_URL || "redis://127.0.0.1:6379",
    CLUBE_REDIS_PREFIX: `clube_test_${process.pid}_${Date.now()}`,
  };
  let first: TestApi;
  let second: Awaited<ReturnType<typeof secondInstance>>;

  beforeAll(async () => {
    first = await openTestClub("sqlite", { api: true, rateLimits: SMALL, env });
    second = await secondInstance(first, env, SMALL);
  });
  afterAll(async () => {
    await second?.close();
    await first?.close();
  });

  it("spends one budget per key across both instances", async () => {
    const viaSecond = (path: string) => fetch(`${second.url}${path}`, { headers: { Authorization: `Bearer ${first.keys.test}` } });
    const statuses: number[] = [];
    for (let i = 0; i < 6; i++) statuses.push((await first.request("GET", "/v1/participants/nobody")).status);
    for (let i = 0; i < 6; i++) {
      const response = await viaSecond("/v1/participants/nobody");
      statuses.push(response.status);
      expect(response.headers.get("RateLimit-Remaining")).toBe(String(12 - 7 - i));
    }
    expect(statuses).toEqual(Array(12).fill(404));
    // The 13th request of the key, whichever instance receives it, is over the shared budget of 12.
    expectRateLimited(await first.request("GET", "/v1/participants/nobody"), 12);
    const overSecond = await viaSecond("/v1/participants/nobody");
    expect(overSecond.status).toBe(429);
    expect(overSecond.headers.get("Retry-After")).not.toBeNull();
  });

  it("counts failed authentications of an address across both instances", async () => {
    const badKey = { Authorization: "Bearer cf_test_guessshared" };
    expect((await first.request("GET", "/v1/participants/nobody", { key: "cf_test_guessshared" })).status).toBe(401);
    expect((await fetch(`${second.url}/v1/participants/nobody`, { headers: badKey })).status).toBe(401);
    expect((await first.request("GET", "/v1/participants/nobody", { key: "cf_test_guessshared" })).status).toBe(401);
    expect((await fetch(`${second.url}/v1/participants/nobody`, { headers: badKey })).status).toBe(429);
  });
});

describe("rate limit configuration", () => {
  it("reads <requests>/<seconds> overrides and keeps the documented defaults otherwise", () => {
    expect(rateLimitsFromEnv({})).toEqual(DEFAULT_RATE_LIMITS);
    expect(rateLimitsFromEnv({ CLUBE_RATE_LIMIT_KEY: "5/60", CLUBE_RATE_LIMIT_FAILED_AUTH: "2/30" })).toEqual({
      ...DEFAULT_RATE_LIMITS,
      apiKey: { points: 5, seconds: 60 },
      failedAuth: { points: 2, seconds: 30 },
    });
    expect(rateLimitsFromEnv({ CLUBE_RATE_LIMIT_INGESTION: "100000/10", CLUBE_RATE_LIMIT_MANAGEMENT: "50/60" }).keyClasses).toEqual({
      ...DEFAULT_RATE_LIMITS.keyClasses,
      ingestion: { points: 100_000, seconds: 10 },
      management: { points: 50, seconds: 60 },
    });
    expect(() => rateLimitsFromEnv({ CLUBE_RATE_LIMIT_PARTICIPANT_READS: "1/0" })).toThrow(/CLUBE_RATE_LIMIT_PARTICIPANT_READS/);
    // One key may ingest several processes' worth of single events (one process takes about 1,200 a second).
    expect(DEFAULT_RATE_LIMITS.keyClasses.ingestion.points / DEFAULT_RATE_LIMITS.keyClasses.ingestion.seconds).toBeGreaterThanOrEqual(4 * 1_200);
    expect(describeRateLimits(DEFAULT_RATE_LIMITS, false).join("\n")).toContain("ingestion 50000/10 s");
    expect(() => rateLimitsFromEnv({ CLUBE_RATE_LIMIT_PARTICIPANT: "fast" })).toThrow(/CLUBE_RATE_LIMIT_PARTICIPANT/);
    expect(() => rateLimitsFromEnv({ CLUBE_RATE_LIMIT_KEY: "0/10" })).toThrow(/CLUBE_RATE_LIMIT_KEY/);
  });

  it("reads CLUBE_TRUST_PROXY as off, on (one hop) or a number of hops, and CLUBE_REDIS_URL as opt-in", () => {
    const hops = (value: string | undefined) => readSettings({ CLUBE_TRUST_PROXY: value }).trustProxyHops;
    expect([hops(undefined), hops(""), hops("off"), hops("false"), hops("0")]).toEqual([0, 0, 0, 0, 0]);
    expect([hops("on"), hops("true"), hops("1"), hops("2")]).toEqual([1, 1, 1, 2]);
    expect(() => hops("yes please")).toThrow(/CLUBE_TRUST_PROXY/);
    expect(() => hops("-1")).toThrow(/CLUBE_TRUST_PROXY/);
    expect(readSettings({}).redisUrl).toBeUndefined();
    expect(readSettings({ CLUBE_REDIS_URL: "redis://127.0.0.1:6379" })).toMatchObject({ redisUrl: "redis://127.0.0.1:6379", redisPrefix: "clube" });
  });
});

describe("rate limits per secret key by route class", () => {
  let api: TestApi;
  const CLASSES: RateLimits = {
    keyClasses: {
      ingestion: { points: 5, seconds: WINDOW },
      participant_reads: { points: 3, seconds: WINDOW },
      participant_writes: { points: 2, seconds: WINDOW },
      management: { points: 4, seconds: WINDOW },
    },
    participant: { points: 50, seconds: WINDOW },
    failedAuth: { points: 50, seconds: WINDOW },
  };
  beforeAll(async () => {
    api = await openTestClub("sqlite", { api: true, rateLimits: CLASSES });
  });
  afterAll(() => api?.close());

  it("classes every operation: events are ingestion, a participant's routes are reads or writes, the rest management", () => {
    expect(routeClassOf({ operationId: "Events_send", method: "post", path: "/v1/events" })).toBe("ingestion");
    expect(routeClassOf({ operationId: "Events_sendBatch", method: "post", path: "/v1/events/batch" })).toBe("ingestion");
    expect(routeClassOf({ operationId: "Participants_get", method: "get", path: "/v1/participants/{external_id}" })).toBe("participant_reads");
    expect(routeClassOf({ operationId: "Me_get", method: "get", path: "/v1/me" })).toBe("participant_reads");
    expect(routeClassOf({ operationId: "Participants_upsert", method: "post", path: "/v1/participants" })).toBe("participant_writes");
    expect(routeClassOf({ operationId: "Deliveries_confirm", method: "post", path: "/v1/deliveries/{id}/confirm" })).toBe("participant_writes");
    expect(routeClassOf({ operationId: "ConfigVersions_publish", method: "post", path: "/v1/config/publish" })).toBe("management");
    expect(routeClassOf({ operationId: "EventLog_list", method: "get", path: "/v1/events" })).toBe("management");
  });

  it("spends each class's budget on its own: a key streaming events still reads, writes and manages", async () => {
    const event = () => api.request("POST", "/v1/events", { body: { participant: "classes-ana", type: "deposit.confirmed", amount: 1 } });
    for (let i = 0; i < 5; i++) expect((await event()).status).toBe(200);
    expectRateLimited(await event(), 5);
    expect((await event()).body.error.message).toContain("ingestion");

    const read = () => api.request("GET", "/v1/participants/classes-ana");
    for (let i = 0; i < 3; i++) expect((await read()).status).toBe(200);
    expectRateLimited(await read(), 3);

    const write = () => api.request("POST", "/v1/participants", { body: { external_id: "classes-bia" } });
    for (let i = 0; i < 2; i++) expect((await write()).status).toBe(200);
    expectRateLimited(await write(), 2);

    const manage = await api.request("GET", "/v1/config");
    expect(manage.status).toBe(200);
    expect(manage.headers.get("RateLimit-Limit")).toBe("4");
    expect(manage.headers.get("RateLimit-Remaining")).toBe("3");
  });
});
