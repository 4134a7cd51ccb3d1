import { afterAll, beforeAll, expect, it } from "vitest";
import type { Database } from "../../../server/src/db/orm.js";
import type { Scope } from "../../../server/src/db/scope.js";
import { listGames, syncGames } from "../../../server/src/usecases/club/games.js";
import { describeEachDatabase, openTestDatabase } from "../../support/databases.js";
import { expectContract } from "../../support/contract.js";

const t0 = new Date("2026-11-21T12:00:00.000Z");
const t1 = new Date("2026-11-21T13:00:00.000Z");
const scope: Scope = { clubId: "club_games", env: "test" };

const tiger = {
  id: "pgsoft-fortune-tiger",
  name: "Fortune Tiger",
  provider: "PG Soft",
  category: "video-slots",
  image_url: "https://cdn.example.com/tiger.webp",
};
const aviator = { id: "spribe-aviator", name: "Aviator", provider: "Spribe", category: "crash" };
const mines = { id: "spribe-mines", name: "Mines", provider: "Spribe", category: "crash" };

describeEachDatabase("game catalog", (kind) => {
  let db: Database;
  let close: () => Promise<void>;
  beforeAll(async () => ({ db, close } = await openTestDatabase(kind)));
  afterAll(() => close?.());

  it("upserts the listed games, all active", async () => {
    expect(await syncGames(db, scope, { games: [tiger, aviator, mines] }, t0)).toEqual({ upserted: 3, deactivated: 0 });
    const list = await listGames(db, scope, {});
    expectContract("GameList", list);
    expect(list).toEqual({
      data: [
        {
          id: "pgsoft-fortune-tiger",
          name: "Fortune Tiger",
          provider: "PG Soft",
          category: "video-slots",
          image_url: "https://cdn.example.com/tiger.webp",
          active: true,
          updated_at: t0.toISOString(),
        },
        { id: "spribe-aviator", name: "Aviator", provider: "Spribe", category: "crash", image_url: null, active: true, updated_at: t0.toISOString() },
        { id: "spribe-mines", name: "Mines", provider: "Spribe", category: "crash", image_url: null, active: true, updated_at: t0.toISOString() },
      ],
      has_more: false,
    });
  });

  it("updates games already in the catalog and leaves the others unless deactivate_missing", async () => {
    expect(await syncGames(db, scope, { games: [{ ...aviator, name: "Aviator 2" }] }, t1)).toEqual({ upserted: 1, deactivated: 0 });
    const { data } = await listGames(db, scope, {});
    expect(data.map((g) => [g.id, g.name, g.active])).toEqual([
      ["pgsoft-fortune-tiger", "Fortune Tiger", true],
      ["spribe-aviator", "Aviator 2", true],
      ["spribe-mines", "Mines", true],
    ]);

    expect(await syncGames(db, scope, { games: [aviator], deactivate_missing: true }, t1)).toEqual({ upserted: 1, deactivated: 2 });
    expect((await listGames(db, scope, { active: false })).data.map((g) => g.id)).toEqual(["pgsoft-fortune-tiger", "spribe-mines"]);
    // Listed again: active again. Games already inactive are not counted twice.
    expect(await syncGames(db, scope, { games: [aviator, mines], deactivate_missing: true }, t1)).toEqual({ upserted: 2, deactivated: 0 });
    expect((await listGames(db, scope, { active: true })).data.map((g) => g.id)).toEqual(["spribe-aviator", "spribe-mines"]);
  });

  it("refuses a list that names a game twice, naming both entries", async () => {
    await expect(syncGames(db, scope, { games: [tiger, aviator, { ...tiger, name: "Outro" }] })).rejects.toMatchObject({
      status: 422,
      code: "validation_failed",
      message: 'body.games[2].id repeats body.games[0].id ("pgsoft-fortune-tiger")',
    });
  });

  it("filters by category and provider and pages after a cursor", async () => {
    expect((await listGames(db, scope, { category: "crash" })).data.map((g) => g.id)).toEqual(["spribe-aviator", "spribe-mines"]);
    expect((await listGames(db, scope, { provider: "PG Soft" })).data.map((g) => g.id)).toEqual(["pgsoft-fortune-tiger"]);
    const first = await listGames(db, scope, { limit: 2 });
    expect(first.data.map((g) => g.id)).toEqual(["pgsoft-fortune-tiger", "spribe-aviator"]);
    expect(first.has_more).toBe(true);
    const second = await listGames(db, scope, { limit: 2, starting_after: first.data[1].id });
    expect(second).toMatchObject({ data: [{ id: "spribe-mines" }], has_more: false });
  });

  it("keeps catalogs of other environments and clubs apart", async () => {
    expect((await listGames(db, { ...scope, env: "live" }, {})).data).toEqual([]);
    await syncGames(db, { ...scope, clubId: "club_other" }, { games: [tiger], deactivate_missing: true }, t1);
    expect((await listGames(db, scope, {})).data).toHaveLength(3);
  });

  it("syncs the largest list the contract allows (5000 games) in one call", async () => {
    const big: Scope = { ...scope, clubId: "club_big" };
    const games = Array.from({ length: 5000 }, (_, i) => ({ id: `game-${String(i).padStart(4, "0")}`, name: `Jogo ${i}`, category: "video-slots" }));
    expect(await syncGames(db, big, { games }, t0)).toEqual({ upserted: 5000, deactivated: 0 });
    expect(await syncGames(db, big, { games: games.slice(0, 4000), deactivate_missing: true }, t1)).toEqual({ upserted: 4000, deactivated: 1000 });
    const page = await listGames(db, big, { limit: 500, starting_after: "game-3999" });
    expect(page.data).toHaveLength(500);
    expect(page.data.every((g) => !g.active)).toBe(true);
    expect(page.has_more).toBe(true);
  });
});
