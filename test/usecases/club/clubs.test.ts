import { afterAll, beforeAll, expect, it } from "vitest";
import { ApiKey, Club, ClubSecret } from "../../../server/src/db/entities/index.js";
import type { Database } from "../../../server/src/db/orm.js";
import { createClub, getKeyInfo, getSigningSecret, resolveApiKey } from "../../../server/src/usecases/club/clubs.js";
import { revokeApiKey } from "../../../server/src/usecases/club/api-keys.js";
import { getPublishedConfig, validateClubConfig } from "../../../server/src/usecases/club/config.js";
import { ApiError } from "../../../server/src/usecases/shared/errors.js";
import { starterConfig } from "../../../server/src/usecases/club/starter-config.js";
import { describeEachDatabase, openTestDatabase } from "../../support/databases.js";
import { compactCasino, demoConfig } from "../../support/club-config.js";
import { expectContract } from "../../support/contract.js";

const now = new Date("2026-11-21T12:00:00.000Z");
const KEY = /^cf_(test|live)_[0-9A-Za-z]{32}$/;

describeEachDatabase("clubs and secret keys", (kind) => {
  let db: Database;
  let close: () => Promise<void>;
  beforeAll(async () => ({ db, close } = await openTestDatabase(kind)));
  afterAll(() => close?.());

  it("creates a club with one key and one signing secret per environment and publishes its config as version 1 in both", async () => {
    const created = await createClub(db, { name: "Cassino do Sol", config: demoConfig(compactCasino) }, now);
    expect(created.club_id).toMatch(/^club_/);
    expect(created.keys.test).toMatch(KEY);
    expect(created.keys.test.startsWith("cf_test_")).toBe(true);
    expect(created.keys.live.startsWith("cf_live_")).toBe(true);

    const em = db.em();
    const keys = await em.find(ApiKey, { clubId: created.club_id }, { orderBy: { env: "asc" } });
    expect(keys.map((k) => [k.env, k.prefix])).toEqual([
      ["live", created.keys.live.slice(0, 12)],
      ["test", created.keys.test.slice(0, 12)],
    ]);
    // Only hashes are stored, never the key itself.
    for (const key of keys) expect(key.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(keys)).not.toContain(created.keys.test);

    const testSecret = await getSigningSecret(db, { clubId: created.club_id, env: "test" });
    const liveSecret = await getSigningSecret(db, { clubId: created.club_id, env: "live" });
    expect(Buffer.from(testSecret!, "base64url")).toHaveLength(32);
    expect(liveSecret).not.toBe(testSecret);

    for (const env of ["test", "live"] as const) {
      const published = await getPublishedConfig(db, { clubId: created.club_id, env });
      expect(published?.version).toBe(1);
      expect(published?.config).toEqual(validateClubConfig(demoConfig(compactCasino)));
    }
  });

  it("publishes the starter configuration when none is given", async () => {
    const created = await createClub(db, { name: "Clube Novo" }, now);
    const published = await getPublishedConfig(db, { clubId: created.club_id, env: "live" });
    expect(published?.config).toEqual(validateClubConfig(starterConfig("Clube Novo")));
  });

  it("refuses an invalid configuration with 422 naming the field, and creates nothing", async () => {
    const clubsBefore = await db.em().count(Club);
    const config = demoConfig(compactCasino);
    config.currencies[0].code = "Coins";
    const failure = createClub(db, { name: "Cassino Ruim", config }, now);
    await expect(failure).rejects.toMatchObject({ status: 422, code: "validation_failed" });
    await expect(failure).rejects.toThrow(/^config\.currencies\[0\]\.code must match pattern/);
    expect(await db.em().count(Club)).toBe(clubsBefore);
  });

  it("accepts a name of 1 to 120 characters", async () => {
    await expect(createClub(db, { name: "x".repeat(120) }, now)).resolves.toBeDefined();
    await expect(createClub(db, { name: "A" }, now)).resolves.toBeDefined();
    await expect(createClub(db, { name: "x".repeat(121) }, now)).rejects.toMatchObject({ status: 422, message: "name must have 1 to 120 characters" });
    await expect(createClub(db, { name: "   " }, now)).rejects.toBeInstanceOf(ApiError);
  });

  it("resolves a key to its club and environment only when it is exactly right and not revoked", async () => {
    const created = await createClub(db, { name: "Cassino da Lua" }, now);
    const test = await resolveApiKey(db, created.keys.test);
    expect(test).toMatchObject({ clubId: created.club_id, env: "test", prefix: created.keys.test.slice(0, 12) });
    expect(await resolveApiKey(db, created.keys.live)).toMatchObject({ clubId: created.club_id, env: "live" });

    // Same prefix, wrong rest: the hash does not match.
    const last = created.keys.test.at(-1) === "a" ? "b" : "a";
    expect(await resolveApiKey(db, created.keys.test.slice(0, -1) + last)).toBeNull();
    // The test key's secret part presented as a live key.
    expect(await resolveApiKey(db, created.keys.test.replace("cf_test_", "cf_live_"))).toBeNull();
    // Malformed keys never reach the database.
    expect(await resolveApiKey(db, created.keys.test + "x")).toBeNull();
    expect(await resolveApiKey(db, "cf_test_short")).toBeNull();
    expect(await resolveApiKey(db, "")).toBeNull();

    // Through the use case: the key is cached by now, and revoking is what makes the cache forget it.
    await revokeApiKey(db, { clubId: created.club_id, env: "test" }, test!.keyId, now);
    expect(await resolveApiKey(db, created.keys.test)).toBeNull();
    expect(await resolveApiKey(db, created.keys.live)).not.toBeNull();
  });

  it("describes the calling key, and nothing of another club's", async () => {
    const created = await createClub(db, { name: "Cassino Estrela" }, now);
    const key = (await resolveApiKey(db, created.keys.live))!;
    const info = await getKeyInfo(db, { clubId: created.club_id, env: "live" }, key.keyId);
    expectContract("KeyInfo", info);
    expect(info).toEqual({
      club_id: created.club_id,
      club_name: "Cassino Estrela",
      env: "live",
      mode: "secret",
      key_prefix: created.keys.live.slice(0, 12),
      created_at: now.toISOString(),
    });
    await expect(getKeyInfo(db, { clubId: "club_other", env: "live" }, key.keyId)).rejects.toMatchObject({ status: 404, code: "not_found" });
    await expect(getKeyInfo(db, { clubId: created.club_id, env: "test" }, key.keyId)).rejects.toMatchObject({ status: 404 });
  });

  it("answers no signing secret for a club that has none", async () => {
    expect(await getSigningSecret(db, { clubId: "club_unknown", env: "test" })).toBeNull();
    const created = await createClub(db, { name: "Sem Segredo" }, now);
    await db.em().nativeDelete(ClubSecret, { clubId: created.club_id, env: "live" });
    expect(await getSigningSecret(db, { clubId: created.club_id, env: "live" })).toBeNull();
    expect(await getSigningSecret(db, { clubId: created.club_id, env: "test" })).not.toBeNull();
  });
});
