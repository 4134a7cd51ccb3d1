import { createServer, type Server, type Socket } from "node:net";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openDatabase, type Database } from "../../server/src/db/orm.js";
import { openServices } from "../../server/src/services.js";
import { readSettings } from "../../server/src/settings.js";
import { startWorker } from "../async/support/processes.js";
import { sleep, waitFor } from "../jobs/support/wait.js";
import { createTestDatabase, type TestDatabase } from "../support/databases.js";
import { freePort } from "./clube-command.js";

/**
 * Only the API checks rate limits, so only a process serving it connects to
 * the Redis of `CLUBE_REDIS_URL`: `clube worker` opens none. A TCP listener
 * standing in for Redis counts who connects (it never answers; the store
 * treats that as Redis being down, which changes nothing here). SQLite only:
 * the choice does not depend on the database.
 */

/** A stand-in for Redis that only counts connections. */
async function countingListener(): Promise<{ url: string; connections(): number; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  let connections = 0;
  const server: Server = createServer((socket) => {
    connections += 1;
    sockets.add(socket);
    socket.on("error", () => undefined);
    socket.on("close", () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `redis://127.0.0.1:${(server.address() as AddressInfo).port}`,
    connections: () => connections,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

describe("the Redis of CLUBE_REDIS_URL is opened only by processes serving the API", () => {
  let target: TestDatabase;
  let redis: Awaited<ReturnType<typeof countingListener>>;

  beforeAll(async () => {
    target = await createTestDatabase("sqlite");
    redis = await countingListener();
  });
  afterAll(async () => {
    await redis?.close();
    await target?.drop();
  });

  it("openServices connects for the API and not with servesApi: false", async () => {
    let db: Database | undefined;
    try {
      db = await openDatabase({ dataDir: target.dataDir });
      const settings = readSettings({ ...process.env, AMQP_URL: "", DATABASE_URL: "", CLUBE_DATA_DIR: target.dataDir, CLUBE_REDIS_URL: redis.url, PORT: "0" });
      const workerOnly = await openServices(settings, { db, servesApi: false });
      expect(workerOnly.rateLimitStore).toBeNull();
      await workerOnly.close();

      // The control: the same settings for the API do connect, so the listener sees a client that tries.
      const api = await openServices(settings, { db });
      try {
        expect(api.rateLimitStore).not.toBeNull();
        await waitFor("the API's Redis connection", () => redis.connections() >= 1);
      } finally {
        await api.close();
      }
    } finally {
      await db?.close();
    }
  });

  it("`clube worker` opens no Redis connection although CLUBE_REDIS_URL is set", async () => {
    const before = redis.connections();
    const port = await freePort();
    const worker = await startWorker({ CLUBE_DATA_DIR: target.dataDir, PORT: port, CLUBE_PUBLIC_URL: `http://127.0.0.1:${port}`, CLUBE_REDIS_URL: redis.url });
    try {
      // A client made at start would have connected by now (it connects at once); this only gives the accept time to show.
      await sleep(500);
    } finally {
      await worker.stop();
    }
    expect(redis.connections() - before).toBe(0);
  });
});
