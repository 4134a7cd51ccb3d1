import { createServer, type AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readSettings } from "../../server/src/settings.js";
import { startApi, type TestApi } from "../support/api.js";
import { describeEachDatabase } from "../support/databases.js";

describeEachDatabase("API health", (kind) => {
  let api: TestApi;
  beforeAll(async () => {
    // The embedded queue: no broker to check, whatever the environment running the tests says.
    api = await startApi(kind, { env: { AMQP_URL: "" } });
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
      checks: { db: "ok", kv: "ok", broker: "not_configured" },
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

  describe("with RabbitMQ", () => {
    let reachable: TestApi;
    let unreachable: TestApi;
    beforeAll(async () => {
      // A port that was just free and is closed again: nothing listens there.
      const server = createServer();
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      const closedPort = (server.address() as AddressInfo).port;
      await new Promise((resolve) => server.close(resolve));
      [reachable, unreachable] = await Promise.all([
        startApi(kind, { env: { AMQP_URL: process.env.AMQP_URL || "amqp://guest:guest@127.0.0.1:5672" } }),
        startApi(kind, { env: { AMQP_URL: `amqp://guest:guest@127.0.0.1:${closedPort}` } }),
      ]);
    });
    afterAll(() => Promise.all([reachable?.close(), unreachable?.close()]));

    it("answers ok when the broker accepts connections", async () => {
      const response = await reachable.request("GET", "/v1/health", { key: null });
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ status: "ok", checks: { db: "ok", kv: "ok", broker: "ok" } });
    });

    it("answers degraded, naming the broker, when the broker is unreachable (still 200, the database checks ok)", async () => {
      const response = await unreachable.request("GET", "/v1/health", { key: null });
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ status: "degraded", checks: { db: "ok", kv: "ok", broker: "error" } });
    });
  });
});
