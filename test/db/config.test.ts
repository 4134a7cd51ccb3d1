import { afterAll, beforeAll, expect, it } from "vitest";
import { ConfigVersion } from "../../server/src/db/entities/index.js";
import type { Database } from "../../server/src/db/orm.js";
import type { Scope } from "../../server/src/db/scope.js";
import { DEFAULT_CASHBACK_PROGRAM, getCashbackProgram, updateCashbackProgram } from "../../server/src/usecases/cashback.js";
import { getDraft, getPublishedConfig, listVersions, publish, saveDraft, validateClubConfig } from "../../server/src/usecases/config.js";
import { describeEachDatabase, openTestDatabase } from "../support/databases.js";
import { casinoClub, casinoConfig } from "./fixtures.js";

const t0 = new Date("2026-11-21T12:00:00.000Z");
const t1 = new Date("2026-11-21T13:00:00.000Z");
const t2 = new Date("2026-11-21T14:00:00.000Z");

describeEachDatabase("configuration drafts, publishing and versions", (kind) => {
  let db: Database;
  let close: () => Promise<void>;
  let scope: Scope;
  beforeAll(async () => {
    ({ db, close } = await openTestDatabase(kind));
    ({ scope } = await casinoClub(db, t0));
  });
  afterAll(() => close?.());

  it("has no draft until one is saved", async () => {
    await expect(getDraft(db, scope)).rejects.toMatchObject({ status: 404, code: "not_found" });
  });

  it("saves a draft as the next version and replaces it in place until it is published", async () => {
    const config = casinoConfig();
    config.name = "Clube Sorte Grande 2";
    const first = await saveDraft(db, scope, config, t1);
    expect(first).toEqual({ version: 2, config: validateClubConfig(config), updated_at: t1.toISOString() });

    config.name = "Clube Sorte Grande 3";
    const second = await saveDraft(db, scope, config, t2);
    expect(second.version).toBe(2);
    expect((await getDraft(db, scope)).config.name).toBe("Clube Sorte Grande 3");
    // Stored as sent: defaults are filled when read, not written.
    const row = await db.em().findOneOrFail(ConfigVersion, { ...scope, version: 2 });
    expect(row.config).toEqual(config);
    // The draft is not in force.
    expect((await getPublishedConfig(db, scope))?.config.name).toBe("Clube Sorte Grande");
  });

  it("refuses an invalid draft with 422 naming the field and keeps the saved draft", async () => {
    const config = casinoConfig();
    config.theme.colors.bg = "black";
    await expect(saveDraft(db, scope, config, t2)).rejects.toMatchObject({
      status: 422,
      code: "validation_failed",
      message: 'config.theme.colors.bg must match pattern "^#[0-9a-fA-F]{6}$"',
    });
    const unknownField = { ...casinoConfig(), colour: "red" };
    await expect(saveDraft(db, scope, unknownField, t2)).rejects.toThrow("config.colour is not an allowed field");
    const crossField = casinoConfig();
    crossField.rules[0].effects[1].currency = "gems";
    await expect(saveDraft(db, scope, crossField, t2)).rejects.toThrow('config.rules[0].effects[1].currency names no configured currency ("gems")');
    expect((await getDraft(db, scope)).config.name).toBe("Clube Sorte Grande 3");
  });

  it("lists versions newest first, paged", async () => {
    expect(await listVersions(db, scope)).toEqual({
      data: [
        { version: 2, status: "draft", created_at: t1.toISOString(), published_at: null },
        { version: 1, status: "published", created_at: t0.toISOString(), published_at: t0.toISOString() },
      ],
      has_more: false,
    });
    const page = await listVersions(db, scope, { limit: 1 });
    expect(page.data.map((v) => v.version)).toEqual([2]);
    expect(page.has_more).toBe(true);
    const next = await listVersions(db, scope, { limit: 1, starting_after: 2 });
    expect(next).toMatchObject({ data: [{ version: 1 }], has_more: false });
  });

  it("publishes the draft: it takes effect at once and the previous version is superseded", async () => {
    const before = await getPublishedConfig(db, scope); // warms the cache with version 1
    expect(before?.version).toBe(1);
    const published = await publish(db, scope, undefined, t2);
    expect(published).toMatchObject({ version: 2, published_at: t2.toISOString() });
    expect(published.config.name).toBe("Clube Sorte Grande 3");
    expect(await getPublishedConfig(db, scope)).toMatchObject({ version: 2, publishedAt: t2 });
    expect((await listVersions(db, scope)).data.map((v) => [v.version, v.status])).toEqual([
      [2, "published"],
      [1, "superseded"],
    ]);
    await expect(getDraft(db, scope)).rejects.toMatchObject({ status: 404 });
  });

  it("answers the version in force again when it is published twice, and refuses superseded or unknown versions", async () => {
    await expect(publish(db, scope, 2, new Date("2026-11-22T00:00:00Z"))).resolves.toMatchObject({ version: 2, published_at: t2.toISOString() });
    await expect(publish(db, scope, 1)).rejects.toMatchObject({ status: 409, code: "conflict" });
    await expect(publish(db, scope, 99)).rejects.toMatchObject({ status: 404, code: "not_found" });
    await expect(publish(db, scope)).rejects.toMatchObject({ status: 404, message: "A configuration draft was not found." });
  });

  it("keeps the environments apart", async () => {
    const live: Scope = { ...scope, env: "live" };
    expect((await getPublishedConfig(db, live))?.version).toBe(1);
    await expect(getDraft(db, live)).rejects.toMatchObject({ status: 404 });
  });

  it("serves the same filled object for a version until another is published", async () => {
    const first = await getPublishedConfig(db, scope);
    expect(await getPublishedConfig(db, scope)).toBe(first);
    await saveDraft(db, scope, casinoConfig(), t2);
    const next = await publish(db, scope, undefined, t2);
    expect((await getPublishedConfig(db, scope))?.version).toBe(next.version);
  });
});

describeEachDatabase("cashback program", (kind) => {
  let db: Database;
  let close: () => Promise<void>;
  let scope: Scope;
  beforeAll(async () => {
    ({ db, close } = await openTestDatabase(kind));
    ({ scope } = await casinoClub(db, t0));
  });
  afterAll(() => close?.());

  it("answers the documented defaults when never set", async () => {
    expect(await getCashbackProgram(db, scope)).toEqual({
      enabled: false,
      mode: "claim",
      hour: 10,
      claim_days: 7,
      min_loss: 0,
      min_pct: 5,
      max_pct: 20,
      tiers: [],
      welcome: { enabled: false, pct: 0, max: 0 },
      text: {},
    });
  });

  it("applies a partial update at once, merging welcome and replacing the other fields", async () => {
    const updated = await updateCashbackProgram(db, scope, {
      enabled: true,
      mode: "auto",
      tiers: [
        { name: "Bronze", min_loss: 5000, pct: 5 },
        { name: "Prata", min_loss: 50000, pct: 10 },
      ],
      welcome: { enabled: true },
      text: { title: "Cashback diário", show_history: true },
    }, t1);
    expect(updated).toEqual({
      ...DEFAULT_CASHBACK_PROGRAM,
      enabled: true,
      mode: "auto",
      tiers: [
        { name: "Bronze", min_loss: 5000, pct: 5 },
        { name: "Prata", min_loss: 50000, pct: 10 },
      ],
      welcome: { enabled: true, pct: 0, max: 0 },
      text: { title: "Cashback diário", show_history: true },
    });
    expect(await getCashbackProgram(db, scope)).toEqual(updated);
    const again = await updateCashbackProgram(db, scope, { hour: 23, welcome: { pct: 20, max: 10000 } }, t2);
    expect(again).toMatchObject({ enabled: true, hour: 23, welcome: { enabled: true, pct: 20, max: 10000 } });
    expect(await getCashbackProgram(db, { ...scope, env: "live" })).toEqual(DEFAULT_CASHBACK_PROGRAM);
  });

  it("refuses values out of bounds or inconsistent with 422 naming the field, changing nothing", async () => {
    const before = await getCashbackProgram(db, scope);
    await expect(updateCashbackProgram(db, scope, { hour: 24 })).rejects.toMatchObject({ status: 422, message: "cashback.hour must be <= 23" });
    await expect(updateCashbackProgram(db, scope, { min_pct: 30 })).rejects.toMatchObject({
      status: 422,
      message: "cashback.min_pct (30) must be <= cashback.max_pct (20)",
    });
    await expect(updateCashbackProgram(db, scope, { tiers: [{ name: "Ouro", min_loss: 1, pct: 21 }] })).rejects.toThrow(
      "cashback.tiers[0].pct (21) must be <= cashback.max_pct (20)",
    );
    await expect(
      updateCashbackProgram(db, scope, { tiers: [{ name: "A", min_loss: 100, pct: 5 }, { name: "B", min_loss: 100, pct: 6 }] }),
    ).rejects.toThrow("cashback.tiers[1].min_loss must be greater than cashback.tiers[0].min_loss");
    expect(await getCashbackProgram(db, scope)).toEqual(before);
    // At the bounds: accepted.
    await expect(updateCashbackProgram(db, scope, { hour: 0, min_pct: 20, claim_days: 30 })).resolves.toMatchObject({ hour: 0, min_pct: 20, claim_days: 30 });
  });
});
