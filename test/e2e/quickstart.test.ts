import { afterAll, beforeAll, expect, it } from "vitest";
import { createTestDatabase, describeEachDatabase, type TestDatabase } from "../support/databases.js";
import { call, envFor, freePort, startServe, type ClubeServer } from "./clube-command.js";

/**
 * README's quick start, done as a person would: `npm start` (which runs
 * `node server/bin/clube.mjs serve`), read the printed test key, then the
 * curl examples and the next steps a client takes (a participant token and
 * the participant surface, a rename), a restart on the same data, and a stop.
 * On the embedded SQLite file and with DATABASE_URL pointing at PostgreSQL.
 */
describeEachDatabase("README quick start", (kind) => {
  let target: TestDatabase;
  let server: ClubeServer;
  let port: string;
  let key: string;
  const running: ClubeServer[] = [];

  const start = async () => {
    port = await freePort();
    server = await startServe({ ...envFor(target), PORT: port });
    running.push(server);
    return server;
  };

  beforeAll(async () => {
    target = await createTestDatabase(kind);
    await start();
  });
  afterAll(async () => {
    for (const each of running) await each.stop();
    await target?.drop();
  });

  it("prints where it listens, the API reference URL and a test key for the demo club", async () => {
    expect(server.url).toBe(`http://localhost:${port}`);
    expect(server.docsUrl).toBe(`http://localhost:${port}/docs`);
    expect(server.demo).toEqual({ clubId: expect.stringMatching(/^club_[A-Za-z0-9]+$/), testKey: expect.stringMatching(/^cf_test_[A-Za-z0-9]+$/) });
    key = server.demo!.testKey;

    const docs = await fetch(server.docsUrl);
    expect(docs.status).toBe(200);
    expect(docs.headers.get("Content-Type")).toContain("text/html");
  });

  it("serves the widget demo page, whose token shows the demo participant through the participant surface", async () => {
    const page = await fetch(`${server.url}/widget/demo`);
    expect(page.status).toBe(200);
    expect(await page.text()).toContain("/widget/loader.js");
    const token = await (await fetch(`${server.url}/widget/demo/token`, { method: "POST" })).text();
    const me = await fetch(`${server.url}/v1/me/config?embedder=${encodeURIComponent(server.url)}`, { headers: { Authorization: `Bearer ${token}` } });
    expect(me.status).toBe(200);
    expect((await me.json()).club_name).toBe("Clube Sorte Grande");
    const progress = await fetch(`${server.url}/v1/me/progress`, { headers: { Authorization: `Bearer ${token}` } });
    expect((await progress.json()).participant.display_name).toBe("Ana (demo)");
  });

  it("answers the README's curl examples with the demo club's key", async () => {
    const created = await call(server.url, "POST", "/v1/participants", key, { external_id: "user_8412", display_name: "Ana" });
    expect(created.status).toBe(200);
    expect(created.body).toMatchObject({ external_id: "user_8412", display_name: "Ana", level: 1, xp: 0, tier: { code: "bronze", name: "Bronze" } });

    const progress = await call(server.url, "GET", "/v1/participants/user_8412/progress", key);
    expect(progress.status).toBe(200);
    expect(progress.body).toMatchObject({
      participant: { external_id: "user_8412", display_name: "Ana" },
      level: { number: 1 },
      xp: { current: 0, required: 1000, total: 0, progress: 0 },
      next_level: { number: 2 },
    });
    expect(progress.body.levels).toHaveLength(60);
  });

  it("gives a participant token that opens the participant surface", async () => {
    const token = await call(server.url, "POST", "/v1/participants/user_8412/token", key, {});
    expect(token.status).toBe(200);
    expect(token.body).toMatchObject({ token: expect.any(String), participant_id: expect.stringMatching(/^par_/), level: { number: 1 } });

    const me = await call(server.url, "GET", "/v1/me", token.body.token);
    expect(me.status).toBe(200);
    expect(me.body).toMatchObject({ id: token.body.participant_id, external_id: "user_8412", display_name: "Ana", level: 1 });
  });

  it("renames the participant", async () => {
    const renamed = await call(server.url, "POST", "/v1/participants/user_8412/rename", key, { new_external_id: "user_8412_br" });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ env: "test", from: "user_8412", to: "user_8412_br", dry_run: false, merged: null });

    expect((await call(server.url, "GET", "/v1/participants/user_8412_br/progress", key)).status).toBe(200);
    expect((await call(server.url, "GET", "/v1/participants/user_8412/progress", key)).status).toBe(404);
  });

  it("stops on SIGTERM with exit code 0", async () => {
    expect(await server.stop()).toEqual({ code: 0, signal: null });
  });

  it("prints the same demo key after a restart on the same data, and the data is still there", async () => {
    const first = server.demo;
    await start();
    expect(server.demo).toEqual(first);

    const participant = await call(server.url, "GET", "/v1/participants/user_8412_br", key);
    expect(participant.status).toBe(200);
    expect(participant.body).toMatchObject({ external_id: "user_8412_br", display_name: "Ana" });

    expect(await server.stop()).toEqual({ code: 0, signal: null });
  }, 90_000);
});
