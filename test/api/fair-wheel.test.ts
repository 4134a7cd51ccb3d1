// The provably fair wheel through HTTP on both databases: the commitment is
// shown before spinning, spins carry their seeds and nonces, a rotation
// reveals the server seed, and every audited spin verifies with the shipped
// @clube/browser verifier.
import { createHash } from "node:crypto";
import { afterAll, beforeAll, expect, it } from "vitest";
import { verifyWheelSpin } from "../../sdk-browser/src/fair-wheel.js";
import { demoConfig, expectError, manualClock, type TestApi } from "../support/api.js";
import { openTestClub } from "../support/club.js";
import { describeEachDatabase } from "../support/databases.js";

const SPINS = 20;

describeEachDatabase("API provably fair wheel", (kind) => {
  let api: TestApi;
  const clock = manualClock(new Date("2026-11-18T12:00:00Z"));
  const me = (method: string, path: string, body?: unknown) => api.request(method, path, { participant: "roleta_1", body });

  beforeAll(async () => {
    api = await openTestClub(kind, { api: true, clock });
    const config = await demoConfig();
    config.wheel.spinsPerDay = SPINS;
    expect((await api.request("PUT", "/v1/config/draft", { body: config })).status).toBe(200);
    expect((await api.request("POST", "/v1/config/publish")).status).toBe(200);
    expect((await api.request("POST", "/v1/events", { body: { participant: "roleta_1", type: "user.signed_up" } })).status).toBe(200);
  });
  afterAll(() => api?.close());

  it("commits before spinning, reveals on rotation, and every spin verifies from the revealed seed", async () => {
    const before = await me("GET", "/v1/me/wheel");
    expect(before.status).toBe(200);
    expect(before.body.fairness).toEqual({ server_seed_hash: expect.stringMatching(/^[0-9a-f]{64}$/), client_seed: expect.any(String), next_nonce: 0 });
    // The same commitment until something changes it.
    expect((await me("GET", "/v1/me/wheel")).body.fairness).toEqual(before.body.fairness);

    const chosen = await me("POST", "/v1/me/wheel/seed", { client_seed: "minha-semente" });
    expect(chosen.status).toBe(200);
    expect(chosen.body.revealed).toEqual({
      server_seed: expect.any(String),
      server_seed_hash: before.body.fairness.server_seed_hash,
      client_seed: before.body.fairness.client_seed,
      spins: 0,
    });
    const committed = chosen.body.next;
    expect(committed).toMatchObject({ client_seed: "minha-semente", next_nonce: 0 });

    const spins = [];
    for (let i = 0; i < SPINS; i++) {
      clock.set(new Date(Date.parse("2026-11-18T12:00:00Z") + (i + 1) * 60_000));
      const spin = await me("POST", "/v1/me/wheel/spin");
      expect(spin.status).toBe(200);
      expect(spin.body.fairness).toEqual({ server_seed_hash: committed.server_seed_hash, client_seed: "minha-semente", nonce: i });
      spins.push(spin.body);
    }
    const hidden = await me("GET", "/v1/me/wheel/spins?limit=100");
    expect(hidden.body.data).toHaveLength(SPINS);
    expect(hidden.body.data.every((row: any) => row.server_seed === null)).toBe(true);

    const rotated = await me("POST", "/v1/me/wheel/seed");
    expect(rotated.body.revealed).toMatchObject({ server_seed_hash: committed.server_seed_hash, spins: SPINS });
    expect(createHash("sha256").update(rotated.body.revealed.server_seed).digest("hex")).toBe(committed.server_seed_hash);
    expect(rotated.body.next.server_seed_hash).not.toBe(committed.server_seed_hash);

    const audit = await api.request("GET", "/v1/participants/roleta_1/wheel_spins?limit=100");
    expect(audit.status).toBe(200);
    expect(audit.body.data.map((row: any) => row.spin_id)).toEqual(spins.map((spin) => spin.spinId).reverse());
    for (const row of audit.body.data) {
      expect(row.server_seed).toBe(rotated.body.revealed.server_seed);
      const spin = spins.find((candidate) => candidate.spinId === row.spin_id);
      expect(row.index).toBe(spin.index);
      const check = await verifyWheelSpin({
        serverSeed: row.server_seed,
        serverSeedHash: row.server_seed_hash,
        clientSeed: row.client_seed,
        nonce: row.nonce,
        weights: row.weights,
        index: row.index,
      });
      expect(check).toEqual({ valid: true, hashMatches: true, index: spin.index });
    }
  });

  it("changes probabilityVersion when the weights change, even if the draft keeps it", async () => {
    const before = (await api.request("GET", "/v1/config")).body.config.wheel.probabilityVersion;
    const config = (await api.request("GET", "/v1/config")).body.config;
    config.wheel.slices[0].weight += 1;
    expect((await api.request("PUT", "/v1/config/draft", { body: config })).status).toBe(200);
    const published = await api.request("POST", "/v1/config/publish");
    expect(published.status).toBe(200);
    expect(published.body.config.wheel.probabilityVersion).toBe(before + 1);
    // Unchanged odds keep the version.
    expect((await api.request("PUT", "/v1/config/draft", { body: published.body.config })).status).toBe(200);
    expect((await api.request("POST", "/v1/config/publish")).body.config.wheel.probabilityVersion).toBe(before + 1);
  });

  it("refuses a bad client seed naming the field, and keeps audits per club", async () => {
    expectError(await me("POST", "/v1/me/wheel/seed", { client_seed: "com espaço" }), 422, "validation_failed", "body.client_seed");
    const other = await api.createOtherClub();
    expectError(await api.request("GET", "/v1/participants/roleta_1/wheel_spins", { key: other.keys.test }), 404, "not_found");
  });
});
