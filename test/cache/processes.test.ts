import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { call, envFor, freePort, startServe, type ClubeEnv, type ClubeServer } from "../e2e/clube-command.js";
import { createTestDatabase, postgresEnabled, type TestDatabase } from "../support/databases.js";

/**
 * Two `clube serve` processes on one PostgreSQL, each caching keys, configs
 * and signing secrets for far longer than the test runs: a change made
 * through process A shows in process B only because B heard A's NOTIFY
 * (cache/listener.ts). The test polls B for the condition; how fast it comes
 * is the benchmark's business, not the test's.
 */

const LONG_TTL = "600000";

async function eventually(probe: () => Promise<boolean>, what: string, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await probe())) {
    if (Date.now() > deadline) throw new Error(`process B still does not show it after ${ms} ms: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe.skipIf(!postgresEnabled)("caches across two server processes on PostgreSQL", () => {
  let target: TestDatabase;
  let a: ClubeServer | undefined;
  let b: ClubeServer | undefined;
  let key: string;

  beforeAll(async () => {
    target = await createTestDatabase("postgresql");
    const env = async (): Promise<ClubeEnv & { PORT: string }> => {
      const settings: ClubeEnv & { PORT: string; CLUBE_CACHE_TTL_MS: string } = { ...envFor(target), PORT: await freePort(), CLUBE_CACHE_TTL_MS: LONG_TTL };
      return settings;
    };
    // One after the other: the first makes the demo club, the second finds it.
    a = await startServe(await env());
    b = await startServe(await env());
    key = a.demo!.testKey;
  }, 120_000);
  afterAll(async () => {
    await Promise.all([a?.stop(), b?.stop()]);
    await target?.drop();
  });

  const onA = (method: string, path: string, body?: unknown, credential = key) => call(a!.url, method, path, credential, body);
  const onB = (method: string, path: string, body?: unknown, credential = key) => call(b!.url, method, path, credential, body);

  it("a key revoked through A is refused by B, which had it cached", async () => {
    const made = await onA("POST", "/v1/keys");
    expect(made.status).toBe(201);
    expect((await onB("GET", "/v1/key", undefined, made.body.secret)).status).toBe(200);
    expect((await onA("DELETE", `/v1/keys/${made.body.id}`)).status).toBe(200);
    await eventually(async () => (await onB("GET", "/v1/key", undefined, made.body.secret)).status === 401, "the revoked key is refused");
  }, 60_000);

  it("a roll through A keeps its overlap on B; a roll without overlap ends the key on B", async () => {
    const made = await onA("POST", "/v1/keys");
    expect((await onB("GET", "/v1/key", undefined, made.body.secret)).status).toBe(200);
    const rolled = await onA("POST", `/v1/keys/${made.body.id}/roll`, { expire_old_after_seconds: 3600 });
    expect(rolled.status).toBe(200);
    const successor: string = rolled.body.key.secret;
    expect((await onB("GET", "/v1/key", undefined, successor)).status).toBe(200);

    expect((await onA("POST", `/v1/keys/${rolled.body.key.id}/roll`, { expire_old_after_seconds: 0 })).status).toBe(200);
    await eventually(async () => (await onB("GET", "/v1/key", undefined, successor)).status === 401, "the key rolled without overlap is refused");
    // The first key's overlap runs on: it still works in both processes.
    expect((await onB("GET", "/v1/key", undefined, made.body.secret)).status).toBe(200);
    expect((await onA("GET", "/v1/key", undefined, made.body.secret)).status).toBe(200);
  }, 60_000);

  it("a configuration published through A is the one B answers", async () => {
    const before = await onB("GET", "/v1/config");
    expect(before.status).toBe(200);
    const renamed = { ...before.body.config, name: `${before.body.config.name} (nova versão)` };
    expect((await onA("PUT", "/v1/config/draft", renamed)).status).toBe(200);
    expect((await onA("POST", "/v1/config/publish")).status).toBe(200);
    await eventually(async () => (await onB("GET", "/v1/config")).body.config?.name === renamed.name, "the new configuration is in force");
  }, 60_000);

  it("after a token-secret roll through A, B verifies tokens of the new secret and refuses the old ones", async () => {
    expect((await onA("POST", "/v1/participants", { external_id: "ana" })).status).toBe(200);
    const oldToken: string = (await onB("POST", "/v1/participants/ana/token")).body.token;
    expect((await onB("GET", "/v1/me", undefined, oldToken)).status).toBe(200);

    expect((await onA("POST", "/v1/token_signing_secret/roll", { expire_old_after_seconds: 0 })).status).toBe(200);
    const newToken: string = (await onA("POST", "/v1/participants/ana/token")).body.token;
    await eventually(async () => (await onB("GET", "/v1/me", undefined, newToken)).status === 200, "a token of the new secret verifies");
    expect((await onB("GET", "/v1/me", undefined, oldToken)).status).toBe(401);
  }, 60_000);
});
