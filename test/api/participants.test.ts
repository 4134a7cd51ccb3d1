import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Balance, LedgerEntry, Participant } from "../../server/src/db/entities/index.js";
import { newId } from "../../server/src/db/ids.js";
import { expectError, manualClock, type TestApi } from "../support/api.js";
import { openTestClub } from "../support/club.js";
import { describeEachDatabase } from "../support/databases.js";

const T0 = new Date("2026-03-14T18:00:00.000Z");

/** The participant with these profile fields as the demo club shows it on level 1 with nothing earned. */
const freshProfile = (external_id: string, display_name: string | null = null, avatar_url: string | null = null) => ({
  id: expect.stringMatching(/^par_/),
  external_id,
  display_name,
  avatar_url,
  xp: 0,
  level: 1,
  max_level: 60,
  level_start_xp: 0,
  next_level_xp: 1000,
  remaining_xp: 1000,
  percent: 0,
  tier: { code: "bronze", name: "Bronze", color: "#CD7F32", badge: null, vip: false },
  next_tier: { code: "prata", name: "Prata", starts_at_level: 10 },
  benefits: ["Suporte prioritário"],
  currencies: [
    { code: "coins", name: "Moedas", icon: "coin", balance: 0 },
    { code: "gems", name: "Gemas", icon: "gem", balance: 0 },
  ],
  flags: {},
});

describeEachDatabase("API participants", (kind) => {
  const clock = manualClock(T0);
  let api: TestApi;
  beforeAll(async () => {
    api = await openTestClub(kind, { api: true, clock });
  });
  afterAll(() => api?.close());

  const scope = () => ({ clubId: api.clubId, env: "test" as const });
  const upsert = (body: Record<string, unknown>) => api.request("POST", "/v1/participants", { body });
  const stored = (externalId: string) => api.db.em().findOneOrFail(Participant, { ...scope(), externalId });

  async function create(...externalIds: string[]) {
    for (const external_id of externalIds) expect((await upsert({ external_id })).status).toBe(200);
  }

  /**
   * Gives a participant XP and balances (each with its ledger row) directly in
   * the database, as the event engine's writes would: no route grants them yet.
   * Levels stay consistent because callers keep XP under 1000 (level 1).
   */
  async function give(externalId: string, xp: number, balances: Record<string, number>) {
    const em = api.db.em();
    const participant = await em.findOneOrFail(Participant, { ...scope(), externalId });
    await em.nativeUpdate(Participant, { id: participant.id }, { xp });
    for (const [currency, amount] of Object.entries(balances)) {
      const row = { ...scope(), participantId: participant.id };
      await em.insert(Balance, { id: newId("bal"), ...row, currency, amount, updatedAt: T0 });
      await em.insert(LedgerEntry, {
        id: newId("led"),
        ...row,
        unit: currency,
        delta: amount,
        balanceAfter: amount,
        reason: "rule",
        ruleId: "deposit-coins",
        eventId: null,
        createdAt: T0,
      });
    }
  }

  describe("upsert", () => {
    it("creates a participant with the profile of level 1", async () => {
      const response = await upsert({ external_id: "user_8412", display_name: "Ana S.", avatar_url: "https://cdn.cassino.example.com/a/onca.png" });
      expect(response.status).toBe(200);
      expect(response.body).toEqual(freshProfile("user_8412", "Ana S.", "https://cdn.cassino.example.com/a/onca.png"));
    });

    it("updates only the fields sent: omitted keeps, null clears, tags replace", async () => {
      const full = {
        display_name: "Bia",
        avatar_url: "https://cdn.cassino.example.com/a/bia.png",
        email: "bia@example.com.br",
        phone: "+5511987654321",
        tags: ["vip-sp", "slots"],
      };
      expect((await upsert({ external_id: "bia", ...full })).status).toBe(200);

      const kept = await upsert({ external_id: "bia" });
      expect(kept.status).toBe(200);
      expect(kept.body).toMatchObject({ display_name: "Bia", avatar_url: full.avatar_url });
      expect(await stored("bia")).toMatchObject({ displayName: "Bia", avatarUrl: full.avatar_url, email: full.email, phone: full.phone, tags: full.tags });

      const cleared = await upsert({ external_id: "bia", display_name: null, avatar_url: null, email: null, phone: null, tags: ["crash"] });
      expect(cleared.status).toBe(200);
      expect(cleared.body).toMatchObject({ display_name: null, avatar_url: null });
      expect(await stored("bia")).toMatchObject({ displayName: null, avatarUrl: null, email: null, phone: null, tags: ["crash"] });

      const emptied = await upsert({ external_id: "bia", tags: [] });
      expect(emptied.body.id).toBe(kept.body.id);
      expect((await stored("bia")).tags).toEqual([]);
    });

    const tags = (n: number) => Array.from({ length: n }, (_, i) => `tag-${i}`);
    const bounds: { field: string; value: unknown; stored?: [keyof Participant, unknown]; refused?: string }[] = [
      { field: "external_id", value: "e".repeat(128) },
      { field: "external_id", value: "e".repeat(129), refused: "body.external_id" },
      { field: "external_id", value: "", refused: "body.external_id" },
      { field: "display_name", value: "n".repeat(80), stored: ["displayName", "n".repeat(80)] },
      { field: "display_name", value: "n".repeat(81), refused: "body.display_name" },
      { field: "phone", value: "9".repeat(32), stored: ["phone", "9".repeat(32)] },
      { field: "phone", value: "9".repeat(33), refused: "body.phone" },
      { field: "tags", value: tags(20), stored: ["tags", tags(20)] },
      { field: "tags", value: tags(21), refused: "body.tags" },
      { field: "tags", value: ["t".repeat(32)], stored: ["tags", ["t".repeat(32)]] },
      { field: "tags", value: ["ok", "t".repeat(33)], refused: "body.tags[1]" },
      { field: "email", value: "ana.souza@example.com.br", stored: ["email", "ana.souza@example.com.br"] },
      { field: "email", value: "ana.souza@", refused: "body.email" },
      { field: "avatar_url", value: "https://cdn.cassino.example.com/a/onca.png", stored: ["avatarUrl", "https://cdn.cassino.example.com/a/onca.png"] },
      { field: "avatar_url", value: "onca.png", refused: "body.avatar_url" },
    ];
    const label = (value: unknown) =>
      Array.isArray(value)
        ? `${value.length} items of up to ${Math.max(...value.map((v) => String(v).length))} characters`
        : `${JSON.stringify(value).slice(0, 20)} (${String(value).length} characters)`;
    it.each(bounds.map((row, i) => ({ ...row, i, sent: label(row.value), outcome: row.refused ? `422 naming ${row.refused}` : "200" })))(
      "$field = $sent → $outcome",
      async ({ field, value, stored: expected, refused, i }) => {
        const externalId = field === "external_id" ? (value as string) : `bounds-${i}`;
        const response = await upsert({ external_id: externalId, [field]: value });
        if (refused) {
          expectError(response, 422, "validation_failed", refused);
          return;
        }
        expect(response.status).toBe(200);
        expect(response.body.external_id).toBe(externalId);
        if (expected) expect((await stored(externalId))[expected[0]]).toEqual(expected[1]);
      },
    );
  });

  describe("profile and progress", () => {
    it("answers the profile", async () => {
      await create("carla");
      const response = await api.request("GET", "/v1/participants/carla");
      expect(response.status).toBe(200);
      expect(response.body).toEqual(freshProfile("carla"));
      expectError(await api.request("GET", "/v1/participants/nobody"), 404, "not_found", "nobody");
    });

    it("shows balances in the configured currency order", async () => {
      await create("rica");
      await give("rica", 400, { gems: 12, coins: 1250 });
      const response = await api.request("GET", "/v1/participants/rica");
      expect(response.body).toMatchObject({ xp: 400, remaining_xp: 600, percent: 40 });
      expect(response.body.currencies.map((c: { code: string; balance: number }) => [c.code, c.balance])).toEqual([
        ["coins", 1250],
        ["gems", 12],
      ]);
    });

    it("answers the progress with the whole level table, privately cacheable for 15 seconds", async () => {
      const response = await api.request("GET", "/v1/participants/carla/progress");
      expect(response.status).toBe(200);
      expect(response.headers.get("Cache-Control")).toBe("private, max-age=15");
      expect(response.body).toEqual({
        participant: { external_id: "carla", display_name: null, avatar_url: null },
        level: { number: 1, name: "Nível 1", badge_url: null, color: "#CD7F32" },
        xp: { current: 0, required: 1000, total: 0, progress: 0 },
        next_level: { number: 2, name: "Nível 2", badge_url: null },
        levels: expect.any(Array),
        currencies: [
          { code: "coins", name: "Moedas", icon: "coin", balance: 0 },
          { code: "gems", name: "Gemas", icon: "gem", balance: 0 },
        ],
        updated_at: T0.toISOString(),
      });
      const { levels } = response.body;
      expect(levels).toHaveLength(60);
      expect(levels[0]).toEqual({ number: 1, name: "Nível 1", xp_required: 1000, badge_url: null, color: "#CD7F32" });
      expect(levels[9]).toMatchObject({ number: 10, color: "#C0C0C0" });
      expect(levels[59]).toEqual({ number: 60, name: "Nível 60", xp_required: null, badge_url: null, color: "#67E8F9" });
      expectError(await api.request("GET", "/v1/participants/nobody/progress"), 404, "not_found");
    });
  });

  describe("batch progress", () => {
    beforeAll(() => create("b1", "b2", "b3"));
    const ids = (n: number) => Array.from({ length: n }, (_, i) => `b${i + 1}`);
    const batch = (external_ids: unknown) => api.request("POST", "/v1/participants/progress", { body: { external_ids } });

    it("answers in the requested order and leaves out unknown ids", async () => {
      const response = await batch(["b3", "nobody", "b1", "b2"]);
      expect(response.status).toBe(200);
      expect(response.body.items.map((item: { external_id: string }) => item.external_id)).toEqual(["b3", "b1", "b2"]);
      expect(response.body.items[0]).toEqual({
        external_id: "b3",
        level: { number: 1, name: "Nível 1", badge_url: null, color: "#CD7F32" },
        xp: { current: 0, required: 1000, total: 0, progress: 0 },
      });
    });

    it.each([
      { count: 1, items: 1 },
      { count: 200, items: 3 },
    ])("takes $count ids", async ({ count, items }) => {
      const response = await batch(ids(count));
      expect(response.status).toBe(200);
      expect(response.body.items).toHaveLength(items);
    });

    it.each([0, 201])("refuses %i ids with 422 naming body.external_ids", async (count) => {
      expectError(await batch(ids(count)), 422, "validation_failed", "body.external_ids");
    });

    it("takes ids of up to 128 characters", async () => {
      expect((await batch(["i".repeat(128)])).body).toEqual({ items: [] });
      expectError(await batch(["b1", "i".repeat(129)]), 422, "validation_failed", "body.external_ids[1]");
      expectError(await batch([""]), 422, "validation_failed", "body.external_ids[0]");
    });
  });

  describe("rename", () => {
    const rename = (from: string, body: Record<string, unknown>) => api.request("POST", `/v1/participants/${from}/rename`, { body });
    const snapshot = (id: string, external_id: string, balances: Record<string, number> = {}, xp = 0, level = 1) => ({
      id,
      external_id,
      xp,
      level,
      balances: balances,
    });

    it("renames: the participant keeps its id, the old id answers 404", async () => {
      await create("r-old");
      const { id } = (await api.request("GET", "/v1/participants/r-old")).body;
      const response = await rename("r-old", { new_external_id: "br:r-new" });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        env: "test",
        from: "r-old",
        to: "br:r-new",
        dry_run: false,
        before: snapshot(id, "r-old"),
        merged: null,
        after: snapshot(id, "br:r-new"),
        rewritten: { "participants.external_id": 1 },
        moved: {},
      });
      expectError(await api.request("GET", "/v1/participants/r-old"), 404, "not_found");
      expect((await api.request("GET", "/v1/participants/br:r-new")).body.id).toBe(id);
    });

    it("renames with merge: true when nobody has the new id", async () => {
      await create("r-lone");
      const response = await rename("r-lone", { new_external_id: "r-lone-2", merge: true });
      expect(response.status).toBe(200);
      expect(response.body.merged).toBeNull();
    });

    it.each([
      { new_external_id: "n".repeat(128), status: 200 },
      { new_external_id: "n".repeat(129), status: 422 },
      { new_external_id: "", status: 422 },
      { new_external_id: "ana souza", status: 422 },
      { new_external_id: "ana/souza", status: 422 },
    ])("new_external_id $new_external_id → $status", async ({ new_external_id, status }) => {
      const from = `r-bound-${new_external_id.length}-${status}`;
      await create(from);
      const response = await rename(from, { new_external_id });
      if (status === 200) expect(response.status).toBe(200);
      else expectError(response, 422, "validation_failed", "body.new_external_id");
      expect((await api.request("GET", `/v1/participants/${from}`)).status).toBe(status === 200 ? 404 : 200);
    });

    it("refuses the current id with 422", async () => {
      await create("r-same");
      expectError(await rename("r-same", { new_external_id: "r-same" }), 422, "validation_failed", "body.new_external_id");
    });

    it("answers 404 for an unknown participant", async () => {
      expectError(await rename("r-nobody", { new_external_id: "r-somebody" }), 404, "not_found");
    });

    it("refuses with 409 participant_exists when the new id exists and merge is not true", async () => {
      await create("r-a", "r-b");
      expectError(await rename("r-a", { new_external_id: "r-b" }), 409, "participant_exists");
      expectError(await rename("r-a", { new_external_id: "r-b", merge: false }), 409, "participant_exists");
      expect((await api.request("GET", "/v1/participants/r-a")).status).toBe(200);
      expect((await api.request("GET", "/v1/participants/r-b")).status).toBe(200);
    });

    it("merges: balances and XP add up, the merged participant's history moves over", async () => {
      await create("m-survivor", "m-merged");
      await give("m-survivor", 600, { coins: 150 });
      await give("m-merged", 500, { coins: 100, gems: 7 });
      const survivor = (await api.request("GET", "/v1/participants/m-survivor")).body.id;
      const merged = (await api.request("GET", "/v1/participants/m-merged")).body.id;

      const response = await rename("m-survivor", { new_external_id: "m-merged", merge: true });
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        env: "test",
        from: "m-survivor",
        to: "m-merged",
        dry_run: false,
        before: snapshot(survivor, "m-survivor", { coins: 150 }, 600),
        merged: { ...snapshot(merged, "m-merged", { coins: 100, gems: 7 }, 500), duplicates_dropped: {} },
        after: snapshot(survivor, "m-merged", { coins: 250, gems: 7 }, 1100, 2),
        rewritten: { "participants.external_id": 1 },
        moved: { balances: 2, ledger_entries: 2 },
      });

      expectError(await api.request("GET", "/v1/participants/m-survivor"), 404, "not_found");
      const profile = (await api.request("GET", "/v1/participants/m-merged")).body;
      expect(profile).toMatchObject({ id: survivor, xp: 1100, level: 2 });
      expect(profile.currencies.map((c: { balance: number }) => c.balance)).toEqual([250, 7]);
      expect(await api.db.em().count(LedgerEntry, { participantId: survivor })).toBe(3);
      expect(await api.db.em().count(Participant, { id: merged })).toBe(0);
    });

    it("dry_run changes nothing and reports what the real run then does", async () => {
      await create("d-survivor", "d-merged");
      await give("d-survivor", 300, { coins: 40 });
      await give("d-merged", 200, { coins: 60 });
      const readBack = async () => ({
        survivor: await api.request("GET", "/v1/participants/d-survivor"),
        merged: await api.request("GET", "/v1/participants/d-merged"),
        ledger: await api.db.em().count(LedgerEntry, scope()),
        participants: await api.db.em().count(Participant, scope()),
      });
      const before = await readBack();

      const dry = await rename("d-survivor", { new_external_id: "d-merged", merge: true, dry_run: true });
      expect(dry.status).toBe(200);
      expect(dry.body).toMatchObject({ dry_run: true, after: { balances: { coins: 100 }, xp: 500 } });
      const after = await readBack();
      expect(after.survivor.body).toEqual(before.survivor.body);
      expect(after.merged.body).toEqual(before.merged.body);
      expect([after.ledger, after.participants]).toEqual([before.ledger, before.participants]);

      const real = await rename("d-survivor", { new_external_id: "d-merged", merge: true });
      expect(real.status).toBe(200);
      expect(real.body).toEqual({ ...dry.body, dry_run: false });
    });

    it("dry_run of a plain rename keeps the old id", async () => {
      await create("d-plain");
      const dry = await rename("d-plain", { new_external_id: "d-plain-2", dry_run: true });
      expect(dry.status).toBe(200);
      expect(dry.body).toMatchObject({ dry_run: true, from: "d-plain", to: "d-plain-2", merged: null });
      expect((await api.request("GET", "/v1/participants/d-plain")).status).toBe(200);
      expectError(await api.request("GET", "/v1/participants/d-plain-2"), 404, "not_found");
    });
  });
});
