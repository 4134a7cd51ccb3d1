/**
 * Micro-benchmark of what every event request asks before the engine runs:
 * the secret key (by hash) and the published configuration. Times N
 * lookups with the caches off (CLUBE_CACHE_TTL_MS=0: what every request cost
 * before the caches) and on, on SQLite and PostgreSQL. Not a test: run
 * `npx tsx bench/micro/lookup-costs.ts`.
 */
import { cachesOf } from "../../server/src/cache/registry.js";
import { openDatabase } from "../../server/src/db/orm.js";
import { createClub, resolveApiKey } from "../../server/src/usecases/club/clubs.js";
import { getPublishedConfig } from "../../server/src/usecases/club/config.js";
import { createTestDatabase, type DatabaseKind } from "../../test/support/databases.js";

const CALLS = 2_000;

for (const kind of ["sqlite", "postgresql"] as DatabaseKind[]) {
  const target = await createTestDatabase(kind);
  try {
    const setup = await openDatabase({ databaseUrl: target.url, dataDir: target.dataDir });
    const club = await createClub(setup, { name: "Cassino Medido" });
    await setup.close();
    for (const ttlMs of [0, 5_000]) {
      const db = await openDatabase({ databaseUrl: target.url, dataDir: target.dataDir });
      cachesOf(db, ttlMs);
      const scope = { clubId: club.club_id, env: "test" as const };
      // Warm: the first lookup reads and fills the configuration document either way.
      await resolveApiKey(db, club.keys.test);
      await getPublishedConfig(db, scope);
      const start = process.hrtime.bigint();
      for (let i = 0; i < CALLS; i++) {
        await resolveApiKey(db, club.keys.test);
        await getPublishedConfig(db, scope);
      }
      const micros = Number(process.hrtime.bigint() - start) / 1000 / CALLS;
      console.log(`${kind.padEnd(10)} caches ${ttlMs === 0 ? "off" : "on "}: key + config lookup ${micros.toFixed(1)} µs/request`);
      await db.close();
    }
  } finally {
    await target.drop();
  }
}
