import { afterAll, beforeAll, beforeEach, expect, it } from "vitest";
import { OutboxMessage, WebhookEndpoint } from "../../server/src/db/entities/index.js";
import type { Database } from "../../server/src/db/orm.js";
import type { Scope } from "../../server/src/db/scope.js";
import { openOutboxStore, type OutboxStore } from "../../server/src/jobs/outbox-store.js";
import { describeEachDatabase, openTestDatabase } from "../support/databases.js";

const T0 = new Date("2025-05-01T10:00:00.000Z");
const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000);
const live: Scope = { clubId: "club_store", env: "live" };
const test: Scope = { clubId: "club_store", env: "test" };
const other: Scope = { clubId: "club_other", env: "live" };

/** The same behaviour is required of every adapter of the outbox store port (jobs/outbox-store.ts). */
describeEachDatabase("outbox store contract", (kind) => {
  let db: Database;
  let close: () => Promise<void>;
  let store: OutboxStore;

  beforeAll(async () => {
    ({ db, close } = await openTestDatabase(kind));
    store = openOutboxStore(db);
  });
  afterAll(() => close());
  beforeEach(async () => {
    await db.em().nativeDelete(OutboxMessage, {});
    await db.em().nativeDelete(WebhookEndpoint, {});
  });

  async function addRow(id: string, createdAt: Date, fields: Partial<OutboxMessage> = {}): Promise<void> {
    await db.em().insert(OutboxMessage, { id, ...live, kind: "webhook", payload: { n: id }, createdAt, relayedAt: null, ...fields });
  }

  it("reads the oldest unrelayed rows first (creation time, then id), up to the limit, with their scope, kind and payload", async () => {
    await addRow("out_c", at(2));
    await addRow("out_b", at(1), { ...test, kind: "event", payload: { event_ids: ["ev_1"], nested: { deep: [1, "two", null] } } });
    await addRow("out_a", at(2));
    await addRow("out_old", at(0), { relayedAt: at(5) });
    const rows = await store.batch((batch) => batch.pending(10));
    expect(rows).toEqual(
      [
        { id: "out_b", ...test, kind: "event", payload: { event_ids: ["ev_1"], nested: { deep: [1, "two", null] } } },
        { id: "out_a", ...live, kind: "webhook", payload: { n: "out_a" } },
        { id: "out_c", ...live, kind: "webhook", payload: { n: "out_c" } },
      ].map((row) => expect.objectContaining(row)),
    );
    expect((await store.batch((batch) => batch.pending(2))).map((row) => row.id)).toEqual(["out_b", "out_a"]);
  });

  it("marks rows relayed at the given time: later batches no longer read them", async () => {
    await addRow("out_1", at(0));
    await addRow("out_2", at(1));
    await addRow("out_3", at(2));
    const handed = await store.batch(async (batch) => {
      const rows = await batch.pending(10);
      await batch.markRelayed(
        rows.slice(0, 2).map((row) => row.id),
        at(30),
      );
      return rows.length;
    });
    expect(handed).toBe(3);
    expect((await store.batch((batch) => batch.pending(10))).map((row) => row.id)).toEqual(["out_3"]);
    const stored = await db.em().find(OutboxMessage, {}, { orderBy: { id: "asc" }, disableIdentityMap: true });
    expect(stored.map((row) => [row.id, row.relayedAt?.toISOString() ?? null])).toEqual([
      ["out_1", at(30).toISOString()],
      ["out_2", at(30).toISOString()],
      ["out_3", null],
    ]);
  });

  it("answers the batch's result and reads nothing when there is nothing to relay", async () => {
    expect(await store.batch(async (batch) => ({ rows: await batch.pending(5) }))).toEqual({ rows: [] });
  });

  it("reads the enabled, not deleted endpoints of the rows' scopes, by scope", async () => {
    const endpoint = (id: string, scope: Scope, fields: Partial<WebhookEndpoint> = {}) =>
      db.em().insert(WebhookEndpoint, {
        id,
        ...scope,
        url: `https://example.test/${id}`,
        events: ["level.up"],
        description: null,
        enabled: true,
        secret: "whsec_x",
        previousSecret: null,
        previousSecretExpiresAt: null,
        createdAt: T0,
        updatedAt: T0,
        deletedAt: null,
        ...fields,
      });
    await endpoint("we_live", live);
    await endpoint("we_test", test, { events: [] });
    await endpoint("we_off", live, { enabled: false });
    await endpoint("we_gone", live, { deletedAt: T0 });
    await endpoint("we_other", other);
    const endpoints = await store.batch((batch) => batch.endpoints([live, test]));
    expect(endpoints.of(live)).toEqual([{ id: "we_live", events: ["level.up"] }]);
    expect(endpoints.of(test)).toEqual([{ id: "we_test", events: [] }]);
    expect(endpoints.of(other)).toEqual([]);
    expect((await store.batch((batch) => batch.endpoints([]))).of(live)).toEqual([]);
  });

  it("purges only the rows relayed before the cutoff; how many", async () => {
    await addRow("out_old", at(0), { relayedAt: at(10) });
    await addRow("out_new", at(0), { relayedAt: at(100) });
    await addRow("out_pending", at(0));
    expect(await store.purgeRelayed(at(50))).toBe(1);
    const left = await db.em().find(OutboxMessage, {}, { orderBy: { id: "asc" }, disableIdentityMap: true });
    expect(left.map((row) => row.id)).toEqual(["out_new", "out_pending"]);
  });
});
