import { spawn } from "node:child_process";
import { once } from "node:events";
import { fileURLToPath } from "node:url";
import { UniqueConstraintViolationException, raw } from "@mikro-orm/core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { Balance, Event, Participant, allEntities } from "../../server/src/db/entities/index.js";
import { newId } from "../../server/src/db/ids.js";
import { committedMigrations, openDatabase, type Database } from "../../server/src/db/orm.js";
import type { Scope } from "../../server/src/db/scope.js";
import { createTestDatabase, describeEachDatabase, type TestDatabase } from "../support/databases.js";

const INCREMENT_PROCESS = fileURLToPath(new URL("./increment-process.ts", import.meta.url));

const scope: Scope = { clubId: "club_schema", env: "test" };
const now = new Date("2026-11-21T12:00:00.000Z");

function participantRow(externalId: string) {
  return {
    id: newId("par"),
    ...scope,
    externalId,
    tags: [],
    flags: {},
    xp: 0,
    level: 1,
    eventCounts: {},
    createdAt: now,
    updatedAt: now,
  };
}

function eventRow(participantId: string, idempotencyKey: string | null) {
  return {
    id: newId("evt"),
    ...scope,
    participantId,
    idempotencyKey,
    type: "deposit.confirmed",
    currency: "BRL",
    occurredAt: now,
    meta: {},
    status: "processed" as const,
    effects: [],
    effectsCount: 0,
    receivedAt: now,
  };
}

describeEachDatabase("schema and migrations", (kind) => {
  let target: TestDatabase;
  let db: Database;

  beforeAll(async () => {
    target = await createTestDatabase(kind);
    db = await openDatabase({ databaseUrl: target.url, dataDir: target.dataDir });
  });
  afterAll(async () => {
    await db?.close();
    await target?.drop();
  });

  it("applies every committed migration to an empty database and creates every entity's table", async () => {
    const applied = await db.orm.getMigrator().getExecutedMigrations();
    expect(applied.map((m) => m.name)).toEqual(committedMigrations[kind].map((m) => m.name));
    const tables = allEntities.map((entity) => db.orm.getMetadata().get(entity.meta.className).tableName);
    const em = db.em();
    for (const table of tables) {
      // A select over every table proves it exists with the columns the entity maps.
      await expect(em.getConnection().execute(`select count(*) as n from ${em.getPlatform().quoteIdentifier(table)}`)).resolves.toBeDefined();
    }
    expect(await db.orm.getMigrator().getPendingMigrations()).toEqual([]);
  });

  it("opening again applies nothing and the entities match the schema", async () => {
    const again = await openDatabase({ databaseUrl: target.url, dataDir: target.dataDir });
    try {
      expect(await again.orm.getMigrator().getExecutedMigrations()).toHaveLength(committedMigrations[kind].length);
      // No difference between the migrated schema and the entity definitions.
      expect(await again.orm.getSchemaGenerator().getUpdateSchemaSQL({ wrap: false })).toBe("");
    } finally {
      await again.close();
    }
  });

  it("round-trips dates, JSON and 64-bit amounts exactly", async () => {
    const em = db.em();
    const row = participantRow("roundtrip");
    em.create(Participant, { ...row, xp: Number.MAX_SAFE_INTEGER, tags: ["vip"], flags: { beta: true, n: 2 }, eventCounts: { "bet.placed": 3 } });
    await em.flush();
    const loaded = await db.em().findOneOrFail(Participant, { id: row.id });
    expect(loaded.xp).toBe(Number.MAX_SAFE_INTEGER);
    expect(loaded.createdAt).toEqual(now);
    expect(loaded.tags).toEqual(["vip"]);
    expect(loaded.flags).toEqual({ beta: true, n: 2 });
    expect(loaded.eventCounts).toEqual({ "bet.placed": 3 });
    expect(loaded.displayName).toBeNull();
  });

  it("refuses a second participant with the same external id in the same club and env", async () => {
    await db.em().insert(Participant, participantRow("dup"));
    await expect(db.em().insert(Participant, participantRow("dup"))).rejects.toBeInstanceOf(UniqueConstraintViolationException);
    // The same external id is a different participant in the other environment or another club.
    await db.em().insert(Participant, { ...participantRow("dup"), env: "live" });
    await db.em().insert(Participant, { ...participantRow("dup"), clubId: "club_other" });
  });

  it("refuses a second event with the same idempotency key, but never deduplicates events without one", async () => {
    const participantId = newId("par");
    await db.em().insert(Event, eventRow(participantId, "key-1"));
    await expect(db.em().insert(Event, eventRow(participantId, "key-1"))).rejects.toBeInstanceOf(UniqueConstraintViolationException);
    await db.em().insert(Event, eventRow(participantId, null));
    await db.em().insert(Event, eventRow(participantId, null));
    expect(await db.em().count(Event, { participantId, idempotencyKey: null })).toBe(2);
  });

  it("refuses a second balance row for the same participant and currency", async () => {
    const participantId = newId("par");
    const balance = () => ({ id: newId("bal"), ...scope, participantId, currency: "coins", amount: 0, updatedAt: now });
    await db.em().insert(Balance, balance());
    await expect(db.em().insert(Balance, balance())).rejects.toBeInstanceOf(UniqueConstraintViolationException);
    await db.em().insert(Balance, { ...balance(), currency: "gems" });
  });

  it("loses no increment when 20 writers add to one balance at the same time", async () => {
    const id = newId("bal");
    await db.em().insert(Balance, { id, ...scope, participantId: newId("par"), currency: "coins", amount: 1000, updatedAt: now });
    await Promise.all(Array.from({ length: 20 }, (_, i) => db.em().nativeUpdate(Balance, { id }, { amount: raw("amount + ?", [i + 1]), updatedAt: now })));
    const balance = await db.em().findOneOrFail(Balance, { id });
    expect(balance.amount).toBe(1000 + (20 * 21) / 2);
  });

  it("a second process writing to the same database waits for the lock instead of failing", async () => {
    // On SQLite the two processes share one file: busy_timeout makes each wait
    // for the other's write lock. (Within one process the pool serializes writers.)
    const id = newId("bal");
    await db.em().insert(Balance, { id, ...scope, participantId: newId("par"), currency: "gems", amount: 0, updatedAt: now });
    const child = spawn(process.execPath, ["--import", "tsx", INCREMENT_PROCESS, target.url ?? "", target.dataDir, id, "200"], {
      stdio: ["ignore", "pipe", "inherit"],
    });
    const exited = once(child, "exit");
    await once(child.stdout, "data"); // "ready": the child is about to start writing
    for (let i = 0; i < 200; i++) {
      await db.em().transactional((em) => em.nativeUpdate(Balance, { id }, { amount: raw("amount + ?", [1]) }));
    }
    const [code] = await exited;
    expect(code).toBe(0);
    expect((await db.em().findOneOrFail(Balance, { id })).amount).toBe(400);
  });
});
