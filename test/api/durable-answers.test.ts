import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { describe, expect, it } from "vitest";
import { createApp } from "../../server/src/app.js";
import { openDatabase } from "../../server/src/db/orm.js";
import { createClub } from "../../server/src/usecases/club/clubs.js";
import { openServices } from "../../server/src/services.js";
import { readSettings } from "../../server/src/settings.js";
import { demoConfig } from "../support/api.js";
import { createTestDatabase } from "../support/databases.js";

describe("answers wait until what they committed is on disk (app.ts durableAnswers)", () => {
  it("an accepted event is answered only once the database says its commit is durable", async () => {
    const target = await createTestDatabase("sqlite");
    const db = await openDatabase({ dataDir: target.dataDir, syncEachCommit: false });
    // The real database, its durable() held by the test until it lets go.
    let asked!: () => void;
    const durableAsked = new Promise<void>((resolve) => (asked = resolve));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let holding = true;
    const held = { ...db, durable: () => (holding ? (asked(), released.then(() => db.durable())) : db.durable()) };
    const settings = readSettings({ ...process.env, DATABASE_URL: "", CLUBE_DATA_DIR: target.dataDir, PORT: "0" });
    const services = await openServices(settings, { db: held });
    const server: Server = createServer((await createApp(services)).callback());
    try {
      holding = false;
      const { keys } = await createClub(db, { name: "Durável", config: await demoConfig() });
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      holding = true;
      let answered = false;
      const response = fetch(`${url}/v1/events`, {
        method: "POST",
        headers: { authorization: `Bearer ${keys.test}`, "content-type": "application/json" },
        body: JSON.stringify({ participant: "p-1", type: "deposit.confirmed", id: "dep-1", amount: 50 }),
      }).then((answer) => ((answered = true), answer));
      await durableAsked;
      // Committed (another reader sees it) but not answered while durable() has not resolved.
      const stored = await db.em().getConnection().execute<{ n: number }[]>("select count(*) as n from events");
      expect(Number(stored[0].n)).toBe(1);
      await new Promise((resolve) => setTimeout(resolve, 100));
      expect(answered).toBe(false);
      release();
      expect((await response).status).toBe(200);
    } finally {
      server.close();
      server.closeAllConnections();
      await services.close();
      await db.close();
      await target.drop();
    }
  });
});
