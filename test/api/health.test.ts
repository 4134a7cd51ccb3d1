import { afterAll, beforeAll, expect, it } from "vitest";
import { readSettings } from "../../server/src/settings.js";
import { startApi, type TestApi } from "../support/api.js";
import { describeEachDatabase } from "../support/databases.js";

describeEachDatabase("API health", (kind) => {
  let api: TestApi;
  beforeAll(async () => {
    api = await startApi(kind);
  });
  afterAll(() => api?.close());

  it("answers ok with the database and store checks, the version and the check latency, without a key", async () => {
    const { version, deployment } = readSettings(process.env);
    const response = await api.request("GET", "/v1/health", { key: null });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      status: "ok",
      version,
      env: deployment,
      checks: { db: "ok", kv: "ok" },
      latency_ms: expect.any(Number),
    });
    expect(Number.isInteger(response.body.latency_ms)).toBe(true);
    expect(response.body.latency_ms).toBeGreaterThanOrEqual(0);
  });

  it("answers the same with a key: the key selects nothing here", async () => {
    const response = await api.request("GET", "/v1/health");
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ status: "ok", checks: { db: "ok", kv: "ok" } });
  });
});
