import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { rateLimitsFromEnv, DEFAULT_RATE_LIMITS, type RateLimits } from "../../server/src/http/rate-limit.js";
import { startApi, type ApiResponse, type TestApi, type TestClub } from "../support/api.js";

/**
 * The rate limits with small budgets configured for the test (the defaults are
 * sized far above the suite's traffic). The limiter is in memory and
 * independent of the database, so one SQLite-backed server per scenario is
 * enough. Windows are long (10 min) so a loaded machine never sees one reset
 * mid-test.
 */
const WINDOW = 600;
const SMALL: RateLimits = {
  apiKey: { points: 12, seconds: WINDOW },
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
    api = await startApi("sqlite", { rateLimits: SMALL });
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
    api = await startApi("sqlite", { rateLimits: SMALL });
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

describe("rate limit configuration", () => {
  it("reads <requests>/<seconds> overrides and keeps the documented defaults otherwise", () => {
    expect(rateLimitsFromEnv({})).toEqual(DEFAULT_RATE_LIMITS);
    expect(rateLimitsFromEnv({ CLUBE_RATE_LIMIT_KEY: "5/60", CLUBE_RATE_LIMIT_FAILED_AUTH: "2/30" })).toEqual({
      ...DEFAULT_RATE_LIMITS,
      apiKey: { points: 5, seconds: 60 },
      failedAuth: { points: 2, seconds: 30 },
    });
    expect(() => rateLimitsFromEnv({ CLUBE_RATE_LIMIT_PARTICIPANT: "fast" })).toThrow(/CLUBE_RATE_LIMIT_PARTICIPANT/);
    expect(() => rateLimitsFromEnv({ CLUBE_RATE_LIMIT_KEY: "0/10" })).toThrow(/CLUBE_RATE_LIMIT_KEY/);
  });
});
