import { afterAll, beforeAll, expect, it } from "vitest";
import { demoConfig, expectError, type TestApi } from "../support/api.js";
import { openTestClub } from "../support/club.js";
import { describeEachDatabase } from "../support/databases.js";

/*
 * GET /v1/config/versions/{version}: one version of the history with its
 * configuration, which the console's rollback saves as a new draft and
 * publishes.
 */
describeEachDatabase("API configuration version", (kind) => {
  let api: TestApi;
  beforeAll(async () => {
    api = await openTestClub(kind, { api: true });
  });
  afterAll(() => api?.close());

  it("answers a superseded version with its configuration; a rollback through a new draft brings it back", async () => {
    const original = (await api.request("GET", "/v1/config")).body.config;
    const before = (await api.request("GET", "/v1/config/versions")).body.data[0];
    const changed = await demoConfig();
    changed.name = "Clube Renomeado";
    expect((await api.request("PUT", "/v1/config/draft", { body: changed })).status).toBe(200);
    expect((await api.request("POST", "/v1/config/publish", { body: {} })).status).toBe(200);

    const earlier = await api.request("GET", `/v1/config/versions/${before.version}`);
    expect(earlier.status).toBe(200);
    expect(earlier.body).toEqual({ ...before, status: "superseded", config: original });

    const saved = await api.request("PUT", "/v1/config/draft", { body: earlier.body.config });
    expect((await api.request("POST", "/v1/config/publish", { body: { version: saved.body.version } })).status).toBe(200);
    expect((await api.request("GET", "/v1/config")).body.config.name).toBe(original.name);
  });

  it("404 for a version that does not exist, 422 naming the path for a bad number, nothing for another club", async () => {
    expectError(await api.request("GET", "/v1/config/versions/999"), 404, "not_found");
    const bad = await api.request("GET", "/v1/config/versions/0");
    expectError(bad, 422, "validation_failed");
    expect(bad.body.error.param).toBe("path.version");
    // Another club's history is its own: the newest version number here is not one of its versions.
    const newest = (await api.request("GET", "/v1/config/versions")).body.data[0].version;
    const other = await api.createOtherClub();
    const theirs = (await api.request("GET", "/v1/config/versions", { key: other.keys.test })).body.data;
    expect(theirs.map((v: { version: number }) => v.version)).not.toContain(newest);
    expectError(await api.request("GET", `/v1/config/versions/${newest}`, { key: other.keys.test }), 404, "not_found");
  });
});
