import { readFile } from "node:fs/promises";
import { afterAll, beforeAll, expect, it } from "vitest";
import { demoConfig, type TestApi } from "../support/api.js";
import { openTestClub } from "../support/club.js";
import { describeEachDatabase } from "../support/databases.js";

/**
 * A configuration is a document an operator writes as a whole: one 422 lists
 * every problem in `error.details` (the documented error shape), so it can be
 * fixed in one pass, and nothing is saved while any remains.
 */

const EXAMPLE = new URL("../../examples/club.json", import.meta.url);

describeEachDatabase("configuration problems, all at once", (kind) => {
  let api: TestApi;
  beforeAll(async () => {
    api = await openTestClub(kind, { api: true });
  });
  afterAll(() => api?.close());

  const versions = async () => (await api.request("GET", "/v1/config/versions")).body.data.length as number;

  it("PUT /v1/config/draft with three schema problems answers one 422 naming all three, and saves nothing", async () => {
    const before = await versions();
    const config = await demoConfig();
    config.theme.colors.bg = "red";
    config.currencies[0].code = "Moedas!";
    config.rules[0].bogus = true;
    const response = await api.request("PUT", "/v1/config/draft", { body: config });
    expect(response.status).toBe(422);
    const { error } = response.body;
    expect(error.code).toBe("validation_failed");
    expect(error.details.map((detail: { param: string }) => detail.param).sort()).toEqual([
      "body.currencies[0].code",
      "body.rules[0].bogus",
      "body.theme.colors.bg",
    ]);
    for (const detail of error.details) expect(detail.message.startsWith(detail.param)).toBe(true);
    expect([error.message, error.param]).toEqual([error.details[0].message, error.details[0].param]);
    expect(await versions()).toBe(before);
  });

  it("lists every consistency problem (duplicate code, unknown currency, unknown reward) the same way", async () => {
    const before = await versions();
    const config = await demoConfig();
    config.rewards[1].code = config.rewards[0].code; // also leaves the old code of rewards[1] unknown to whoever named it
    config.rules[0].effects[0].currency = "nope";
    config.checkin.rewards[0].reward = "zz:1";
    const response = await api.request("PUT", "/v1/config/draft", { body: config });
    expect(response.status).toBe(422);
    const params = response.body.error.details.map((detail: { param: string }) => detail.param);
    expect(params).toEqual(expect.arrayContaining(["body.rewards[1].code", "body.rules[0].effects[0].currency", "body.checkin.rewards[0].reward"]));
    expect(params.length).toBeGreaterThanOrEqual(3);
    expect(await versions()).toBe(before);
  });

  it("examples/club.json passes the contract's schema and is published and served as written", async () => {
    const example = JSON.parse(await readFile(EXAMPLE, "utf8"));
    const saved = await api.request("PUT", "/v1/config/draft", { body: example });
    expect(saved.status).toBe(200);
    expect((await api.request("POST", "/v1/config/publish", { body: { version: saved.body.version } })).status).toBe(200);
    const served = await api.request("GET", "/v1/config");
    expect(served.status).toBe(200);
    // Publishing raises the wheel's probabilityVersion above the replaced wheel's (its odds changed).
    expect(served.body.config).toMatchObject({ ...example, wheel: { ...example.wheel, probabilityVersion: expect.any(Number) } });
  });
});
