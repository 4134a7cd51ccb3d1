import { afterAll, beforeAll, beforeEach, expect, it } from "vitest";
import { ApiKey } from "../../server/src/db/entities/index.js";
import { openDatabase } from "../../server/src/db/orm.js";
import { createClub, resolveApiKey } from "../../server/src/usecases/club/clubs.js";
import { expectError, manualClock, type TestApi } from "../support/api.js";
import { openTestClub } from "../support/club.js";
import { createTestDatabase, describeEachDatabase, type TestDatabase } from "../support/databases.js";
import { envFor, runClube } from "../e2e/clube-command.js";

const T0 = new Date("2026-03-14T18:00:00.000Z");
const at = (seconds: number) => new Date(T0.getTime() + seconds * 1000);
const KEY = /^cf_test_[0-9A-Za-z]{32}$/;

describeEachDatabase("API keys", (kind) => {
  const clock = manualClock(T0);
  let api: TestApi;

  beforeAll(async () => {
    api = await openTestClub(kind, { api: true, clock });
  });
  afterAll(() => api?.close());
  beforeEach(() => clock.set(T0));

  const keyStatus = async (key: string) => (await api.request("GET", "/v1/key", { key })).status;

  it("creates a key shown once, lists keys by prefix and last 4 only, and stores only a hash", async () => {
    const created = await api.request("POST", "/v1/keys");
    expect(created.status).toBe(201);
    const secret: string = created.body.secret;
    expect(secret).toMatch(KEY);
    expect(created.body).toMatchObject({ env: "test", key_prefix: secret.slice(0, 12), last4: secret.slice(-4), expires_at: null, revoked_at: null });
    expect(await keyStatus(secret)).toBe(200);

    const list = await api.request("GET", "/v1/keys");
    expect(list.status).toBe(200);
    const { secret: _shownOnce, ...listed } = created.body;
    expect(list.body.data).toContainEqual(listed);
    expect(JSON.stringify(list.body)).not.toContain(secret);
    expect(JSON.stringify(list.body)).not.toContain(api.keys.test);
    // Only test keys: the live key belongs to the other environment.
    expect(list.body.data.every((key: { env: string }) => key.env === "test")).toBe(true);

    const row = await api.db.em().fork().findOneOrFail(ApiKey, { id: created.body.id });
    expect(row.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(JSON.stringify(row)).not.toContain(secret);
  });

  it("rolls a key with an overlap: the old key works until it ends, then answers 401", async () => {
    const original = (await api.request("POST", "/v1/keys")).body;
    const rolled = await api.request("POST", `/v1/keys/${original.id}/roll`, { key: original.secret, body: { expire_old_after_seconds: 60 } });
    expect(rolled.status).toBe(200);
    expect(rolled.body.key.secret).toMatch(KEY);
    expect(rolled.body.previous).toMatchObject({ id: original.id, expires_at: at(60).toISOString(), revoked_at: null });

    clock.set(at(59));
    expect(await keyStatus(original.secret)).toBe(200);
    expect(await keyStatus(rolled.body.key.secret)).toBe(200);
    clock.set(at(60));
    expectError(await api.request("GET", "/v1/key", { key: original.secret }), 401, "unauthorized");
    expect(await keyStatus(rolled.body.key.secret)).toBe(200);
    // An expired key cannot be rolled again.
    expectError(await api.request("POST", `/v1/keys/${original.id}/roll`, { body: {} }), 404, "not_found");
  });

  it("rolls with no overlap by default, and revokes at once (idempotently)", async () => {
    const original = (await api.request("POST", "/v1/keys")).body;
    const rolled = await api.request("POST", `/v1/keys/${original.id}/roll`, { body: {} });
    expect(rolled.body.previous.expires_at).toBe(T0.toISOString());
    expect(await keyStatus(original.secret)).toBe(401);

    const other = rolled.body.key;
    const revoked = await api.request("DELETE", `/v1/keys/${other.id}`);
    expect(revoked.status).toBe(200);
    expect(revoked.body).toMatchObject({ id: other.id, revoked_at: T0.toISOString() });
    expect(await keyStatus(other.secret)).toBe(401);
    clock.set(at(5));
    expect((await api.request("DELETE", `/v1/keys/${other.id}`)).body.revoked_at).toBe(T0.toISOString());
  });

  it("refuses other clubs' keys, unknown ids and bad overlaps", async () => {
    const other = await api.createOtherClub();
    const theirs = (await api.request("POST", "/v1/keys", { key: other.keys.test })).body;
    expectError(await api.request("DELETE", `/v1/keys/${theirs.id}`), 404, "not_found");
    expectError(await api.request("POST", `/v1/keys/${theirs.id}/roll`, { body: {} }), 404, "not_found");
    expect(await keyStatus(theirs.secret)).toBe(200);
    for (const expire_old_after_seconds of [-1, 604_801, 1.5, "60"]) {
      const response = await api.request("POST", `/v1/keys/${theirs.id}/roll`, { key: other.keys.test, body: { expire_old_after_seconds } });
      expectError(response, 422, "validation_failed", "body.expire_old_after_seconds");
    }
    expectError(await api.request("GET", "/v1/keys?starting_after=key_nope"), 422, "validation_failed", "query.starting_after");
  });

  it("rolls the token signing secret: old tokens verify until the overlap ends, new tokens at once", async () => {
    expect((await api.request("POST", "/v1/participants", { body: { external_id: "ana" } })).status).toBe(200);
    const tokenOf = async () => (await api.request("POST", "/v1/participants/ana/token", { body: { ttl_seconds: 3600 } })).body.token as string;
    const me = async (token: string) => (await api.request("GET", "/v1/me", { token })).status;
    const old = await tokenOf();
    expect(await me(old)).toBe(200);

    const rolled = await api.request("POST", "/v1/token_signing_secret/roll", { body: { expire_old_after_seconds: 300 } });
    expect(rolled.status).toBe(200);
    expect(rolled.body).toEqual({ env: "test", rolled_at: T0.toISOString(), previous_expires_at: at(300).toISOString() });
    const fresh = await tokenOf();
    expect(fresh).not.toBe(old);
    expect(await me(fresh)).toBe(200);

    clock.set(at(299));
    expect(await me(old)).toBe(200);
    clock.set(at(300));
    expectError(await api.request("GET", "/v1/me", { token: old }), 401, "invalid_token");
    expect(await me(fresh)).toBe(200);

    // A roll without overlap retires the current secret at once; the live environment is untouched.
    const liveToken = (await api.request("POST", "/v1/participants/ana/token", { key: api.keys.live })).body.token as string;
    expect((await api.request("POST", "/v1/token_signing_secret/roll", { body: {} })).status).toBe(200);
    expect(await me(fresh)).toBe(401);
    expect(await me(liveToken)).toBe(200);
  });
});

describeEachDatabase("clube keys", (kind) => {
  let target: TestDatabase;
  let clubId: string;
  let testKey: string;

  beforeAll(async () => {
    target = await createTestDatabase(kind);
    const db = await openDatabase({ databaseUrl: target.url, dataDir: target.dataDir });
    try {
      const created = await createClub(db, { name: "Cassino CLI" });
      clubId = created.club_id;
      testKey = created.keys.test;
    } finally {
      await db.close();
    }
  }, 60_000);
  afterAll(() => target?.drop());

  const resolve = async (raw: string) => {
    const db = await openDatabase({ databaseUrl: target.url, dataDir: target.dataDir });
    try {
      return await resolveApiKey(db, raw);
    } finally {
      await db.close();
    }
  };

  it("creates, rolls with an overlap, revokes and lists keys", async () => {
    const scope = ["--club", clubId, "--env", "test", "--json"];
    const created = await runClube(["keys", "create", ...scope], envFor(target));
    expect(created).toMatchObject({ code: 0, stderr: "" });
    const key = JSON.parse(created.stdout);
    expect(key.secret).toMatch(KEY);
    expect(await resolve(key.secret)).toMatchObject({ clubId, env: "test", keyId: key.id });

    const rolled = await runClube(["keys", "roll", key.id, ...scope, "--expire-old-after", "3600"], envFor(target));
    expect(rolled).toMatchObject({ code: 0, stderr: "" });
    const { key: next, previous } = JSON.parse(rolled.stdout);
    expect(new Date(previous.expires_at).getTime() - Date.now()).toBeGreaterThan(3000 * 1000);
    expect(await resolve(key.secret)).not.toBeNull(); // still inside the overlap
    expect(await resolve(next.secret)).not.toBeNull();

    const revoked = await runClube(["keys", "revoke", key.id, "--club", clubId, "--env", "test"], envFor(target));
    expect(revoked).toMatchObject({ code: 0, stderr: "", stdout: expect.stringContaining(`Key ${key.id} revoked at `) });
    expect(await resolve(key.secret)).toBeNull();

    const listed = await runClube(["keys", "list", "--club", clubId, "--env", "test"], envFor(target));
    expect(listed.code).toBe(0);
    const lines = listed.stdout.trim().split("\n");
    expect(lines).toHaveLength(3);
    expect(lines[0]).toContain(`${next.id}  ${next.key_prefix}…${next.last4}`);
    expect(lines.find((line) => line.startsWith(key.id))).toContain("revoked ");
    for (const secret of [key.secret, next.secret, testKey]) expect(listed.stdout).not.toContain(secret);
  }, 240_000);
});
