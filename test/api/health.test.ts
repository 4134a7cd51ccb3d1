import { createServer as createHttpServer, type Server } from "node:http";
import { connect, createServer, type AddressInfo, type Socket } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createApp } from "../../server/src/app.js";
import { openDatabase, type Database } from "../../server/src/db/orm.js";
import { openRateLimitStore } from "../../server/src/http/rate-limit-store.js";
import { openServices, type Services } from "../../server/src/services.js";
import { readSettings } from "../../server/src/settings.js";
import { createClub } from "../../server/src/usecases/club/clubs.js";
import { demoConfig, type TestApi } from "../support/api.js";
import { openTestClub } from "../support/club.js";
import { createTestDatabase, describeEachDatabase, postgresEnabled, type TestDatabase } from "../support/databases.js";

/**
 * Port 1 (tcpmux): nothing listens there and no test binds it. A port found
 * free and closed again could be taken meanwhile by another test's server.
 */
const CLOSED_PORT = 1;

/**
 * A TCP proxy in front of PostgreSQL that the test can cut: `blackhole()`
 * drops every open connection and then accepts new ones without ever
 * answering (a host that vanished behind a firewall), `close()` stops it.
 */
async function tcpProxy(targetPort: number): Promise<{ port: number; blackhole(): void; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  let swallow = false;
  const track = (socket: Socket) => {
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => socket.destroy());
  };
  const server = createServer((client) => {
    track(client);
    if (swallow) return;
    const upstream = connect({ host: "127.0.0.1", port: targetPort });
    track(upstream);
    client.pipe(upstream).pipe(client);
    client.on("close", () => upstream.destroy());
    upstream.on("close", () => client.destroy());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    port: (server.address() as AddressInfo).port,
    blackhole() {
      swallow = true;
      for (const socket of sockets) socket.destroy();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

async function getHealth(url: string): Promise<any> {
  const response = await fetch(`${url}/v1/health`);
  expect(response.status).toBe(200);
  return response.json();
}

describeEachDatabase("API health", (kind) => {
  let api: TestApi;
  beforeAll(async () => {
    // The embedded queue: no broker to check, whatever the environment running the tests says.
    api = await openTestClub(kind, { api: true, env: { AMQP_URL: "", CLUBE_REDIS_URL: "" } });
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
      checks: { db: "ok", kv: "ok", broker: "not_configured", rate_limits: "not_configured" },
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
      const port = CLOSED_PORT;
      [reachable, unreachable] = await Promise.all([
        openTestClub(kind, { api: true, env: { AMQP_URL: process.env.AMQP_URL || "amqp://guest:guest@127.0.0.1:5672" } }),
        openTestClub(kind, { api: true, env: { AMQP_URL: `amqp://guest:guest@127.0.0.1:${port}` } }),
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

describe.skipIf(!postgresEnabled)("API health with PostgreSQL behind a proxy the test cuts", () => {
  let target: TestDatabase;
  let proxy: Awaited<ReturnType<typeof tcpProxy>>;
  let db: Database;
  let services: Services;
  let server: Server;
  let url: string;

  beforeAll(async () => {
    target = await createTestDatabase("postgresql");
    const direct = new URL(target.url!);
    proxy = await tcpProxy(Number(direct.port || 5432));
    const viaProxy = new URL(target.url!);
    viaProxy.hostname = "127.0.0.1";
    viaProxy.port = String(proxy.port);
    db = await openDatabase({ databaseUrl: viaProxy.toString(), dataDir: target.dataDir });
    const settings = readSettings({ ...process.env, AMQP_URL: "", CLUBE_REDIS_URL: "", DATABASE_URL: viaProxy.toString(), PORT: "0" });
    services = await openServices(settings, { db });
    const app = await createApp(services, { validateResponses: true });
    server = createHttpServer(app.callback());
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise<void>((resolve) => {
      server?.close(() => resolve());
      server?.closeAllConnections();
    });
    await services?.close();
    await proxy?.close();
    // The pool may still wait on a swallowed connection: closing it must not keep the suite from dropping its database.
    await Promise.race([db?.close().catch(() => {}), new Promise((resolve) => setTimeout(resolve, 3_000))]);
    await target?.drop();
  });

  it("answers ok while the database answers, then degraded naming the database when it stops answering, without hanging", async () => {
    const club = await createClub(db, { name: "Cassino Proxy", config: await demoConfig() });
    const participant = () => fetch(`${url}/v1/participants/proxy-ana`, { headers: { Authorization: `Bearer ${club.keys.test}` } });
    expect((await participant()).status).toBe(404);
    expect(await getHealth(url)).toMatchObject({ status: "ok", checks: { db: "ok", kv: "ok" } });
    // Connections cut and new ones never answered: the checks give up after their timeout instead of waiting for the pool.
    proxy.blackhole();
    const degraded = await getHealth(url);
    expect(degraded).toMatchObject({ status: "degraded", checks: { db: "error", kv: "error", broker: "not_configured" } });
    // A request that needs the database is told to come back later, not that the service is broken.
    const started = Date.now();
    const unavailable = await participant();
    expect(unavailable.status).toBe(503);
    expect(unavailable.headers.get("Retry-After")).toMatch(/^\d+$/);
    const body = await unavailable.json();
    expect(body).toEqual({ error: { code: "service_unavailable", message: expect.stringContaining("Retry") } });
    expect(Date.now() - started).toBeLessThan(20_000);
  }, 40_000);
});

describe("API health with a Redis rate-limit store", () => {
  let reachable: TestApi;
  let unreachable: TestApi;
  beforeAll(async () => {
    const prefix = `clube_test_${Date.now()}_${process.pid}`;
    [reachable, unreachable] = await Promise.all([
      openTestClub("sqlite", {
        api: true,
        env: { AMQP_URL: "", CLUBE_REDIS_URL: process.env.CLUBE_TEST_REDIS_URL || "redis://127.0.0.1:6379", CLUBE_REDIS_PREFIX: prefix },
      }),
      openTestClub("sqlite", { api: true, env: { AMQP_URL: "", CLUBE_REDIS_URL: `redis://127.0.0.1:${CLOSED_PORT}`, CLUBE_REDIS_PREFIX: prefix } }),
    ]);
  });
  afterAll(() => Promise.all([reachable?.close(), unreachable?.close()]));

  it("a store just opened answers its first ping once its connection is up; an unreachable one fails at its first refused attempt", async () => {
    const redisUrl = process.env.CLUBE_TEST_REDIS_URL || "redis://127.0.0.1:6379";
    const fresh = openRateLimitStore(redisUrl, "clube_test_ping");
    const closed = openRateLimitStore(`redis://127.0.0.1:${CLOSED_PORT}`, "clube_test_ping");
    try {
      await expect(fresh.ping(2_000)).resolves.toBeUndefined();
      const started = Date.now();
      await expect(closed.ping(2_000)).rejects.toThrow();
      expect(Date.now() - started).toBeLessThan(1_500);
    } finally {
      await Promise.all([fresh.close(), closed.close()]);
    }
  });

  it("answers ok when Redis answers", async () => {
    expect(await getHealth(reachable.url)).toMatchObject({ status: "ok", checks: { rate_limits: "ok" } });
  });

  it("answers degraded naming the store when Redis is unreachable, and requests are still served (limited in memory)", async () => {
    expect(await getHealth(unreachable.url)).toMatchObject({ status: "degraded", checks: { db: "ok", kv: "ok", rate_limits: "error" } });
    const response = await unreachable.request("GET", "/v1/participants/nobody");
    expect(response.status).toBe(404);
    expect(response.headers.get("RateLimit-Limit")).not.toBeNull();
  });
});
