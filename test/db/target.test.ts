import { existsSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { databaseTarget } from "../../server/src/db/options.js";
import { openDatabase } from "../../server/src/db/orm.js";

describe("where the data lives", () => {
  it("without a URL: the embedded SQLite file in the data directory", () => {
    expect(databaseTarget({ dataDir: "/var/lib/clube" })).toEqual({ dialect: "sqlite", file: "/var/lib/clube/clube.sqlite" });
    expect(databaseTarget({ databaseUrl: "", dataDir: "/data" })).toEqual({ dialect: "sqlite", file: "/data/clube.sqlite" });
  });

  it("a postgres:// or postgresql:// URL: PostgreSQL; any other scheme is refused", () => {
    for (const url of ["postgres://clube@db:5432/clube", "postgresql://clube@db/clube"]) {
      expect(databaseTarget({ databaseUrl: url, dataDir: "/data" })).toEqual({ dialect: "postgresql", url });
    }
    expect(() => databaseTarget({ databaseUrl: "mysql://root@db/clube", dataDir: "/data" })).toThrow('got scheme "mysql"');
  });

  it("creates the data directory and the migrated SQLite file on first open", async () => {
    const root = await mkdtemp(join(tmpdir(), "clube-target-"));
    try {
      const dataDir = join(root, "nested", "data");
      const db = await openDatabase({ dataDir });
      try {
        expect(db.dialect).toBe("sqlite");
        expect(existsSync(join(dataDir, "clube.sqlite"))).toBe(true);
        expect(await db.orm.getMigrator().getPendingMigrations()).toEqual([]);
      } finally {
        await db.close();
      }
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });

  it("opens without migrating when asked, leaving an empty database empty", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "clube-target-"));
    try {
      const db = await openDatabase({ dataDir, migrate: false });
      try {
        expect(await db.orm.getMigrator().getExecutedMigrations()).toEqual([]);
      } finally {
        await db.close();
      }
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });
});
