import { afterAll, beforeAll, expect, it } from "vitest";
import { ConfigVersion } from "../../../server/src/db/entities/index.js";
import type { Database } from "../../../server/src/db/orm.js";
import type { Scope } from "../../../server/src/db/scope.js";
import { cashbackProgramView } from "../../../server/src/engine/cashback.js";
import { DEFAULT_CASHBACK_PROGRAM, getCashbackProgram, updateCashbackProgram } from "../../../server/src/usecases/cashback/cashback.js";
import { getDraft, getPublishedConfig, listVersions, publish, saveDraft, validateClubConfig } from "../../../server/src/usecases/club/config.js";
import { describeEachDatabase } from "../../support/databases.js";
import { openTestClub } from "../../support/club.js";
import { compactCasino, demoConfig } from "../../support/club-config.js";
import { expectContract } from "../../support/contract.js";

const t0 = new Date("2026-11-21T12:00:00.000Z");
const t1 = new Date("2026-11-21T13:00:00.000Z");
const t2 = new Date("2026-11-21T14:00:00.000Z");

describeEachDatabase("configuration drafts, publishing and versions", (kind) => {
  let db: Database;
  let close: () => Promise<void>;
  let scope: Scope;
  beforeAll(async () => {
    ({ db, scope, close } = await openTestClub(kind, { config: demoConfig(compactCasino), name: "Cassino do Sol", now: t0 }));
  });
  afterAll(() => close?.());

  it("has no draft until one is saved", async () => {
    await expect(getDraft(db, scope)).rejects.toMatchObject({ status: 404, code: "not_found" });
  });

  it("saves each draft as a new version above the highest; the newest is the draft", async () => {
    const config = demoConfig(compactCasino);
    config.name = "Clube Sorte Grande 2";
    const draft = await saveDraft(db, scope, config, t1);
    expectContract("ConfigDraft", draft);
    expect(draft).toEqual({ version: 2, config: validateClubConfig(config), updated_at: t1.toISOString() });

    config.name = "Clube Sorte Grande 3";
    expect((await saveDraft(db, scope, config, t2)).version).toBe(3);
    expect(await getDraft(db, scope)).toMatchObject({ version: 3, config: { name: "Clube Sorte Grande 3" }, updated_at: t2.toISOString() });
    // Versions are never edited, and are stored as sent: defaults are filled when read.
    expect((await db.em().findOneOrFail(ConfigVersion, { ...scope, version: 2 })).config).toMatchObject({ name: "Clube Sorte Grande 2" });
    expect((await db.em().findOneOrFail(ConfigVersion, { ...scope, version: 3 })).config).toEqual(config);
    // A draft is not in force.
    expect((await getPublishedConfig(db, scope))?.config.name).toBe("Clube Sorte Grande");
  });

  it("refuses an invalid draft with 422 naming the field of the body, saving nothing", async () => {
    const config = demoConfig(compactCasino);
    config.theme.colors.bg = "black";
    await expect(saveDraft(db, scope, config, t2)).rejects.toMatchObject({
      status: 422,
      code: "validation_failed",
      message: 'body.theme.colors.bg must match pattern "^#[0-9a-fA-F]{6}$"',
    });
    await expect(saveDraft(db, scope, { ...demoConfig(compactCasino), colour: "red" }, t2)).rejects.toThrow("body.colour is not an allowed field");
    const crossField = demoConfig(compactCasino);
    crossField.rules[0].effects[1].currency = "gems";
    await expect(saveDraft(db, scope, crossField, t2)).rejects.toThrow(
      "body.rules[0].effects[1].currency names currency 'gems', which is not in body.currencies",
    );
    expect((await listVersions(db, scope)).data.map((v) => v.version)).toEqual([3, 2, 1]);
  });

  it("lists versions newest first, paged after a version", async () => {
    expect(await listVersions(db, scope)).toEqual({
      data: [
        { version: 3, status: "draft", created_at: t2.toISOString(), published_at: null },
        { version: 2, status: "draft", created_at: t1.toISOString(), published_at: null },
        { version: 1, status: "published", created_at: t0.toISOString(), published_at: t0.toISOString() },
      ],
      has_more: false,
    });
    const page = await listVersions(db, scope, { limit: 2 });
    expectContract("ConfigVersionList", page);
    expect(page.data.map((v) => v.version)).toEqual([3, 2]);
    expect(page.has_more).toBe(true);
    expect(await listVersions(db, scope, { limit: 2, starting_after: 2 })).toMatchObject({ data: [{ version: 1 }], has_more: false });
  });

  it("publishes a named draft: in force at once; the published version and older drafts superseded, newer drafts kept", async () => {
    expect((await getPublishedConfig(db, scope))?.version).toBe(1); // warms the cache with version 1
    const published = await publish(db, scope, 2, t2);
    expectContract("ConfigVersion", published);
    expect(published).toEqual({
      version: 2,
      published_at: t2.toISOString(),
      config: validateClubConfig({ ...demoConfig(compactCasino), name: "Clube Sorte Grande 2" }),
    });
    expect(await getPublishedConfig(db, scope)).toMatchObject({ version: 2, publishedAt: t2 });
    expect((await listVersions(db, scope)).data.map((v) => [v.version, v.status])).toEqual([
      [3, "draft"],
      [2, "published"],
      [1, "superseded"],
    ]);
    expect((await getDraft(db, scope)).version).toBe(3);
  });

  it("publishes the newest draft when no version is named, superseding every older one", async () => {
    await saveDraft(db, scope, demoConfig(compactCasino), t2); // version 4
    expect((await publish(db, scope, undefined, t2)).version).toBe(4);
    expect((await listVersions(db, scope)).data.map((v) => [v.version, v.status])).toEqual([
      [4, "published"],
      [3, "superseded"],
      [2, "superseded"],
      [1, "superseded"],
    ]);
    await expect(getDraft(db, scope)).rejects.toMatchObject({ status: 404, code: "not_found" });
  });

  it("refuses versions that are not drafts (409 version_not_draft), unknown versions and a missing draft (404)", async () => {
    await expect(publish(db, scope, 4)).rejects.toMatchObject({ status: 409, code: "version_not_draft", message: "Version 4 is published, not a draft." });
    await expect(publish(db, scope, 1)).rejects.toMatchObject({ status: 409, code: "version_not_draft", message: "Version 1 is superseded, not a draft." });
    await expect(publish(db, scope, 99)).rejects.toMatchObject({ status: 404, code: "not_found" });
    await expect(publish(db, scope)).rejects.toMatchObject({ status: 404, message: "A configuration draft was not found." });
  });

  it("keeps the environments apart", async () => {
    const live: Scope = { ...scope, env: "live" };
    expect((await getPublishedConfig(db, live))?.version).toBe(1);
    await expect(getDraft(db, live)).rejects.toMatchObject({ status: 404 });
    expect((await listVersions(db, live)).data).toHaveLength(1);
  });

  it("serves the same filled object for a version until another is published", async () => {
    const first = await getPublishedConfig(db, scope);
    expect(await getPublishedConfig(db, scope)).toBe(first);
    await saveDraft(db, scope, demoConfig(compactCasino), t2);
    const next = await publish(db, scope, undefined, t2);
    expect((await getPublishedConfig(db, scope))?.version).toBe(next.version);
  });
});

describeEachDatabase("cashback program", (kind) => {
  let db: Database;
  let close: () => Promise<void>;
  let scope: Scope;
  beforeAll(async () => {
    ({ db, scope, close } = await openTestClub(kind, { config: demoConfig(compactCasino), name: "Cassino do Sol", now: t0 }));
  });
  afterAll(() => close?.());

  it("answers the documented defaults when never set", async () => {
    expectContract("CashbackProgram", cashbackProgramView(await getCashbackProgram(db, scope)));
    expect(cashbackProgramView(await getCashbackProgram(db, scope))).toEqual({
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
      currency: "BRL",
    });
  });

  it("applies a partial update at once, merging welcome and replacing the other fields", async () => {
    const updated = await updateCashbackProgram(
      db,
      scope,
      {
        enabled: true,
        mode: "auto",
        tiers: [
          { name: "Bronze", min_loss_minor: 5000, pct: 5 },
          { name: "Prata", min_loss_minor: 50000, pct: 10 },
        ],
        welcome: { enabled: true },
        text: { title: "Cashback diário", show_history: true },
      },
      t1,
    );
    expect(updated).toEqual({
      ...cashbackProgramView(DEFAULT_CASHBACK_PROGRAM),
      enabled: true,
      mode: "auto",
      tiers: [
        { name: "Bronze", min_loss: 50, pct: 5 },
        { name: "Prata", min_loss: 500, pct: 10 },
      ],
      welcome: { enabled: true, pct: 0, max: 0 },
      text: { title: "Cashback diário", show_history: true },
    });
    expect(cashbackProgramView(await getCashbackProgram(db, scope))).toEqual(updated);
    // Stored in integer cents, as the engine computes with them.
    expect((await getCashbackProgram(db, scope)).tiers).toEqual([
      { name: "Bronze", min_loss_minor: 5000, pct: 5 },
      { name: "Prata", min_loss_minor: 50000, pct: 10 },
    ]);
    const again = await updateCashbackProgram(db, scope, { hour: 23, welcome: { pct: 20, max_minor: 10000 } }, t2);
    expect(again).toMatchObject({ enabled: true, hour: 23, welcome: { enabled: true, pct: 20, max: 100 } });
    expect(await getCashbackProgram(db, { ...scope, env: "live" })).toEqual(DEFAULT_CASHBACK_PROGRAM);
  });

  it("refuses values out of bounds or inconsistent with 422 naming the field, changing nothing", async () => {
    const before = await getCashbackProgram(db, scope);
    await expect(updateCashbackProgram(db, scope, { hour: 24 })).rejects.toMatchObject({ status: 422, message: "body.hour must be <= 23" });
    await expect(updateCashbackProgram(db, scope, { min_pct: 30 })).rejects.toMatchObject({
      status: 422,
      message: "body.min_pct (30) must be <= body.max_pct (20)",
    });
    await expect(
      updateCashbackProgram(db, scope, {
        tiers: [
          { name: "A", min_loss_minor: 100, pct: 5 },
          { name: "B", min_loss_minor: 100, pct: 6 },
        ],
      }),
    ).rejects.toThrow("body.tiers[1].min_loss_minor must be greater than body.tiers[0].min_loss_minor (bands ascend by loss)");
    expect(await getCashbackProgram(db, scope)).toEqual(before);
    // At the bounds: accepted. A band above the cap is allowed (it pays the cap).
    await expect(updateCashbackProgram(db, scope, { hour: 0, min_pct: 20, claim_days: 30 })).resolves.toMatchObject({ hour: 0, min_pct: 20, claim_days: 30 });
    await expect(updateCashbackProgram(db, scope, { hour: 23, tiers: [{ name: "Ouro", min_loss_minor: 1, pct: 25 }] })).resolves.toMatchObject({ hour: 23 });
  });
});
