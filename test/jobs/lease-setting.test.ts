import { describe, expect, it } from "vitest";
import type { Database } from "../../server/src/db/orm.js";
import { embeddedQueueOf } from "../../server/src/jobs/embedded.js";
import { openQueue } from "../../server/src/jobs/open-queue.js";
import { readSettings } from "../../server/src/settings.js";

/** `CLUBE_LEASE_SECONDS`: how long a crashed process's claims on jobs and webhook attempts last (docs/operations.md). */
describe("CLUBE_LEASE_SECONDS", () => {
  it("defaults to 60 s, takes a positive number of seconds and refuses anything else naming the setting", () => {
    expect(readSettings({}).leaseMs).toBe(60_000);
    expect(readSettings({ CLUBE_LEASE_SECONDS: "15" }).leaseMs).toBe(15_000);
    expect(readSettings({ CLUBE_LEASE_SECONDS: "0.5" }).leaseMs).toBe(500);
    for (const bad of ["0", "-1", "soon", "Infinity"]) expect(() => readSettings({ CLUBE_LEASE_SECONDS: bad })).toThrow(/CLUBE_LEASE_SECONDS/);
  });

  it("reaches the embedded queue's leases", async () => {
    const queue = openQueue({ amqpUrl: undefined, db: {} as Database, leaseMs: 15_000 });
    expect(embeddedQueueOf(queue)?.leaseMs).toBe(15_000);
    expect(embeddedQueueOf(openQueue({ amqpUrl: undefined, db: {} as Database }))?.leaseMs).toBe(60_000);
  });
});
