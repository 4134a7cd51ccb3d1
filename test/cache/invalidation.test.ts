import { afterAll, beforeAll, expect, it } from "vitest";
import { listenForChanges, type ChangeListener } from "../../server/src/cache/listener.js";
import { cachesOf } from "../../server/src/cache/registry.js";
import { ApiKey, ConfigVersion } from "../../server/src/db/entities/index.js";
import { openDatabase, type Database } from "../../server/src/db/orm.js";
import { createClub, getSigningSecrets, resolveApiKey } from "../../server/src/usecases/club/clubs.js";
import { getPublishedConfig, publish, saveDraft } from "../../server/src/usecases/club/config.js";
import { createApiKey, revokeApiKey, rollApiKey } from "../../server/src/usecases/club/api-keys.js";
import { starterConfig } from "../../server/src/usecases/club/starter-config.js";
import { rollTokenSecret } from "../../server/src/usecases/club/token-secret.js";
import { createTestDatabase, describeEachDatabase, type TestDatabase } from "../support/databases.js";

/**
 * The caches of keys, published configs and signing secrets (cache/) on a
 * real database: with a TTL far longer than the test, what a change makes
 * visible at once can only come from its invalidation. Rows changed behind
 * the use cases' back stay cached, which is how the test sees that the
 * cache answers at all.
 */

const LONG_TTL_MS = 600_000;
const now = new Date("2026-11-21T12:00:00.000Z");

/** Polls `probe` until it returns true; fails after `ms` (the condition, not the time, is what the test asserts). */
async function eventually(probe: () => Promise<boolean>, what: string, ms = 20_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`still not true after ${ms} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

describeEachDatabase("caches of keys, configs and signing secrets", (kind) => {
  let target: TestDatabase;
  let db: Database;
  let club: Awaited<ReturnType<typeof createClub>>;
  const scope = () => ({ clubId: club.club_id, env: "test" as const });

  beforeAll(async () => {
    target = await createTestDatabase(kind);
    db = await openDatabase({ databaseUrl: target.url, dataDir: target.dataDir });
    cachesOf(db, LONG_TTL_MS);
    club = await createClub(db, { name: "Cassino do Cache" }, now);
  });
  afterAll(async () => {
    await db?.close();
    await target?.drop();
  });

  it("answers a known key from memory, and forgets it at once when it is revoked", async () => {
    const made = await createApiKey(db, scope(), now);
    expect(await resolveApiKey(db, made.secret)).toMatchObject({ keyId: made.id });
    // Revoked behind the use case: the cached key still answers.
    await db.em().nativeUpdate(ApiKey, { id: made.id }, { revokedAt: now });
    expect(await resolveApiKey(db, made.secret)).toMatchObject({ keyId: made.id });
    await revokeApiKey(db, scope(), made.id, now);
    expect(await resolveApiKey(db, made.secret)).toBeNull();
  });

  it("keeps a rolled key's overlap: the old key works until its end, checked on every use, and the new one at once", async () => {
    const made = await createApiKey(db, scope(), now);
    expect(await resolveApiKey(db, made.secret, now)).not.toBeNull();
    const rolled = await rollApiKey(db, scope(), made.id, 3600, now);
    const end = new Date(now.getTime() + 3600_000);
    expect(await resolveApiKey(db, made.secret, new Date(end.getTime() - 1))).toMatchObject({ keyId: made.id });
    expect(await resolveApiKey(db, made.secret, end)).toBeNull();
    expect(await resolveApiKey(db, rolled.key.secret, end)).toMatchObject({ keyId: rolled.key.id });
    // A roll without overlap ends the key at once, although it was cached.
    await rollApiKey(db, scope(), rolled.key.id, 0, now);
    expect(await resolveApiKey(db, rolled.key.secret, now)).toBeNull();
  });

  it("never caches an unknown key: a key made later works at once", async () => {
    const made = await createApiKey(db, scope(), now);
    await db.em().nativeUpdate(ApiKey, { id: made.id }, { revokedAt: now });
    expect(await resolveApiKey(db, made.secret)).toBeNull();
    await db.em().nativeUpdate(ApiKey, { id: made.id }, { revokedAt: null });
    expect(await resolveApiKey(db, made.secret)).toMatchObject({ keyId: made.id });
  });

  it("answers the published config from memory as one object per version, and the new version right after a publish", async () => {
    const first = await getPublishedConfig(db, scope());
    expect(await getPublishedConfig(db, scope())).toBe(first);
    // Changed behind the use case: still the cached document.
    await db.em().nativeUpdate(ConfigVersion, { ...scope(), version: first!.version }, { config: starterConfig("Nunca visto") });
    expect((await getPublishedConfig(db, scope()))!.config.name).toBe(first!.config.name);

    await saveDraft(db, scope(), starterConfig("Cassino do Cache 2"), now);
    await publish(db, scope(), undefined, now);
    const second = await getPublishedConfig(db, scope());
    expect(second).toMatchObject({ version: first!.version + 1, config: { name: "Cassino do Cache 2" } });
    expect(await getPublishedConfig(db, scope())).toBe(second);
    // The other environment kept its entry.
    expect((await getPublishedConfig(db, { ...scope(), env: "live" }))!.version).toBe(1);
  });

  it("forgets the signing secrets at once on a roll, keeping the previous one for the overlap", async () => {
    const before = (await getSigningSecrets(db, scope()))!;
    await rollTokenSecret(db, scope(), 600, now);
    const after = (await getSigningSecrets(db, scope()))!;
    expect(after.current).not.toBe(before.current);
    expect(after.previous?.secret).toBe(before.current);
  });

  if (kind === "postgresql") {
    it("another process's caches forget a revoked key and a published config as soon as the NOTIFY arrives", async () => {
      // A second Database on the same PostgreSQL stands for another process: its caches are its own.
      const other = await openDatabase({ databaseUrl: target.url, dataDir: target.dataDir });
      const caches = cachesOf(other, LONG_TTL_MS);
      let listener: ChangeListener | undefined;
      try {
        listener = await listenForChanges(target.url!, { onChange: (change) => caches.forget(change), onGap: () => caches.forgetAll() });
        const made = await createApiKey(db, scope(), now);
        expect(await resolveApiKey(other, made.secret)).toMatchObject({ keyId: made.id });
        const published = await getPublishedConfig(other, scope());

        await revokeApiKey(db, scope(), made.id, now);
        await eventually(async () => (await resolveApiKey(other, made.secret)) === null, "the revoked key is refused by the other process");

        await saveDraft(db, scope(), starterConfig("Cassino do Cache 3"), now);
        await publish(db, scope(), undefined, now);
        await eventually(async () => (await getPublishedConfig(other, scope()))!.version === published!.version + 1, "the other process sees the new version");
      } finally {
        await listener?.close();
        await other.close();
      }
    });

    it("the listener reconnects after its connection is killed, forgetting what it cached meanwhile, and hears changes again", async () => {
      const other = await openDatabase({ databaseUrl: target.url, dataDir: target.dataDir });
      const caches = cachesOf(other, LONG_TTL_MS);
      let gaps = 0;
      let listener: ChangeListener | undefined;
      try {
        listener = await listenForChanges(target.url!, { onChange: (change) => caches.forget(change), onGap: () => (gaps++, caches.forgetAll()) });
        const killed = await db
          .em()
          .getConnection()
          .execute(
            "select pg_terminate_backend(pid) as killed from pg_stat_activity where datname = current_database() and query = 'LISTEN clube_cache_changes'",
          );
        expect(killed).toHaveLength(1);
        // One gap when it drops, one when it listens again.
        await eventually(async () => gaps >= 2, "the listener is back");

        const made = await createApiKey(db, scope(), now);
        expect(await resolveApiKey(other, made.secret)).toMatchObject({ keyId: made.id });
        await revokeApiKey(db, scope(), made.id, now);
        await eventually(async () => (await resolveApiKey(other, made.secret)) === null, "the revoke is heard after the reconnect");
      } finally {
        await listener?.close();
        await other.close();
      }
    });
  }
});
