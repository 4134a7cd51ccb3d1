import { afterAll, beforeAll, beforeEach, expect, it } from "vitest";
import { expectError, manualClock, type RequestOptions, type TestApi, type TestClub } from "../support/api.js";
import { openTestClub } from "../support/club.js";
import { describeEachDatabase } from "../support/databases.js";

const T0 = new Date("2026-03-14T18:00:00.000Z");
const T1 = new Date("2026-03-15T09:30:00.000Z");

const fortuneTiger = {
  id: "pgsoft-fortune-tiger",
  name: "Fortune Tiger",
  provider: "PG Soft",
  category: "video-slots",
  image_url: "https://cdn.cassino.example.com/jogos/fortune-tiger.webp",
};
const aviator = {
  id: "spribe-aviator",
  name: "Aviator",
  provider: "Spribe",
  category: "crash",
  image_url: "https://cdn.cassino.example.com/jogos/aviator.webp",
};
const mines = { id: "spribe-mines", name: "Mines", provider: "Spribe", category: "crash" };
const roulette = { id: "evolution-roleta-brasileira", name: "Roleta Brasileira", provider: "Evolution", category: "live-casino" };

const ids = (body: { data: { id: string }[] }) => body.data.map((game) => game.id);

describeEachDatabase("API game catalog", (kind) => {
  const clock = manualClock(T0);
  let api: TestApi;
  beforeAll(async () => {
    api = await openTestClub(kind, { api: true, clock });
  });
  afterAll(() => api?.close());
  beforeEach(() => clock.set(T0));

  /** Requests with the test key of a fresh club, so each test starts from an empty catalog. */
  async function freshCatalog() {
    const club: TestClub = await api.createOtherClub();
    return {
      club,
      call: (method: string, path: string, options: RequestOptions = {}) => api.request(method, path, { key: club.keys.test, ...options }),
      sync: (body: Record<string, unknown>) => api.request("POST", "/v1/games", { key: club.keys.test, body }),
    };
  }

  it("upserts games and lists them by id, fields left out as null", async () => {
    const { call, sync } = await freshCatalog();
    const synced = await sync({ games: [mines, fortuneTiger, aviator] });
    expect(synced.status).toBe(200);
    expect(synced.body).toEqual({ upserted: 3, deactivated: 0 });

    const list = await call("GET", "/v1/games");
    expect(list.status).toBe(200);
    expect(list.body).toEqual({
      data: [
        { ...fortuneTiger, active: true, updated_at: T0.toISOString() },
        { ...aviator, active: true, updated_at: T0.toISOString() },
        { ...mines, image_url: null, active: true, updated_at: T0.toISOString() },
      ],
      has_more: false,
    });
  });

  it("updates listed games and leaves the others as they are without deactivate_missing", async () => {
    const { call, sync } = await freshCatalog();
    await sync({ games: [fortuneTiger, aviator] });
    clock.set(T1);
    const renamed = { id: aviator.id, name: "Aviator Turbo" };
    expect((await sync({ games: [renamed] })).body).toEqual({ upserted: 1, deactivated: 0 });
    expect((await call("GET", "/v1/games")).body.data).toEqual([
      { ...fortuneTiger, active: true, updated_at: T0.toISOString() },
      { ...renamed, provider: null, category: null, image_url: null, active: true, updated_at: T1.toISOString() },
    ]);
  });

  it("deactivates the games missing from a full sync, and reactivates them when listed again", async () => {
    const { call, sync } = await freshCatalog();
    await sync({ games: [fortuneTiger, aviator, mines] });
    expect((await sync({ games: [aviator, roulette], deactivate_missing: true })).body).toEqual({ upserted: 2, deactivated: 2 });
    expect(ids((await call("GET", "/v1/games?active=false")).body)).toEqual([fortuneTiger.id, mines.id]);
    expect(ids((await call("GET", "/v1/games?active=true")).body)).toEqual([roulette.id, aviator.id]);

    // already inactive games are not counted again
    expect((await sync({ games: [aviator, roulette], deactivate_missing: true })).body).toEqual({ upserted: 2, deactivated: 0 });
    expect((await sync({ games: [fortuneTiger] })).body).toEqual({ upserted: 1, deactivated: 0 });
    expect(ids((await call("GET", "/v1/games?active=true")).body)).toEqual([roulette.id, fortuneTiger.id, aviator.id]);
  });

  it("filters by active, category and provider", async () => {
    const { call, sync } = await freshCatalog();
    await sync({ games: [fortuneTiger, aviator, mines, roulette] });
    await sync({ games: [fortuneTiger, aviator, roulette], deactivate_missing: true });
    const cases: [string, string[]][] = [
      ["category=crash", [aviator.id, mines.id]],
      ["provider=Spribe", [aviator.id, mines.id]],
      ["provider=Spribe&active=true", [aviator.id]],
      ["category=crash&provider=PG%20Soft", []],
      ["category=live-casino", [roulette.id]],
      ["provider=Evolution&category=live-casino&active=true", [roulette.id]],
    ];
    for (const [query, expected] of cases) {
      const response = await call("GET", `/v1/games?${query}`);
      expect(response.status).toBe(200);
      expect([query, ids(response.body)]).toEqual([query, expected]);
    }
  });

  it("pages with limit and starting_after", async () => {
    const { call, sync } = await freshCatalog();
    await sync({ games: [fortuneTiger, aviator, mines, roulette] });
    const first = await call("GET", "/v1/games?limit=2");
    expect([ids(first.body), first.body.has_more]).toEqual([[roulette.id, fortuneTiger.id], true]);
    const second = await call("GET", `/v1/games?limit=2&starting_after=${fortuneTiger.id}`);
    expect([ids(second.body), second.body.has_more]).toEqual([[aviator.id, mines.id], false]);
    const after = await call("GET", `/v1/games?starting_after=${mines.id}`);
    expect(after.body).toEqual({ data: [], has_more: false });
  });

  it("applies syncs sent at once one after the other: none fails, none loses a game", async () => {
    const { call, sync } = await freshCatalog();
    await sync({ games: [mines, fortuneTiger, aviator] });
    // Overlapping lists in different orders, half of them deactivating the rest: on PostgreSQL two such upserts deadlocked.
    const bodies = Array.from({ length: 24 }, (_, i) => ({
      games: i % 2 === 0 ? [{ ...mines, name: `Mines ${i}` }, aviator] : [aviator, { ...fortuneTiger, name: `Tiger ${i}` }, mines],
      deactivate_missing: i % 3 === 0,
    }));
    const answers = await Promise.all(bodies.map((body) => sync(body)));
    expect(answers.map((answer) => answer.status)).toEqual(bodies.map(() => 200));
    const list = await call("GET", "/v1/games");
    expect(list.body.data).toHaveLength(3);
  });

  it("keeps test and live catalogs apart", async () => {
    const { club, sync } = await freshCatalog();
    await sync({ games: [fortuneTiger] });
    expect((await api.request("GET", "/v1/games", { key: club.keys.live })).body).toEqual({ data: [], has_more: false });
  });

  it.each([
    ["limit=1", 200],
    ["limit=500", 200],
    ["limit=0", 422],
    ["limit=501", 422],
    ["active=maybe", 422],
  ])("GET /v1/games?%s → %i", async (query, status) => {
    const response = await api.request("GET", `/v1/games?${query}`);
    if (status === 200) expect(response.status).toBe(200);
    else expectError(response, 422, "validation_failed", `query.${query.split("=")[0]}`);
  });

  it("takes 1 to 5000 games per sync", async () => {
    const { call, sync } = await freshCatalog();
    const games = (n: number) => Array.from({ length: n }, (_, i) => ({ id: `jogo-${String(i).padStart(4, "0")}`, name: `Jogo ${i}` }));
    expect((await sync({ games: games(1) })).body).toEqual({ upserted: 1, deactivated: 0 });
    expect((await sync({ games: games(5000) })).body).toEqual({ upserted: 5000, deactivated: 0 });
    expectError(await sync({ games: games(5001) }), 422, "validation_failed", "body.games");
    expectError(await sync({ games: [] }), 422, "validation_failed", "body.games");
    expect((await call("GET", "/v1/games?limit=500&starting_after=jogo-4499")).body.data).toHaveLength(500);
  });

  it("refuses a game listed twice, naming the repeated entry", async () => {
    const { call, sync } = await freshCatalog();
    expectError(await sync({ games: [aviator, mines, { ...aviator, name: "Aviator 2" }] }), 422, "validation_failed", "body.games[2].id");
    expect((await call("GET", "/v1/games")).body.data).toEqual([]);
  });

  const url = (length: number) => `https://cdn.cassino.example.com/${"x".repeat(length - "https://cdn.cassino.example.com/".length)}`;
  it.each(
    [
      { field: "id", value: "i".repeat(120), refused: null },
      { field: "id", value: "i".repeat(121), refused: "body.games[0].id" },
      { field: "id", value: "", refused: "body.games[0].id" },
      { field: "name", value: "n".repeat(120), refused: null },
      { field: "name", value: "n".repeat(121), refused: "body.games[0].name" },
      { field: "name", value: "", refused: "body.games[0].name" },
      { field: "provider", value: "p".repeat(60), refused: null },
      { field: "provider", value: "p".repeat(61), refused: "body.games[0].provider" },
      { field: "provider", value: null, refused: "body.games[0].provider" },
      { field: "category", value: "c".repeat(40), refused: null },
      { field: "category", value: "c".repeat(41), refused: "body.games[0].category" },
      { field: "image_url", value: url(2000), refused: null },
      { field: "image_url", value: url(2001), refused: "body.games[0].image_url" },
      { field: "image_url", value: "fortune-tiger.webp", refused: "body.games[0].image_url" },
      { field: "rtp", value: 96.81, refused: "body.games[0].rtp" },
    ].map((row) => ({
      ...row,
      sent: typeof row.value === "string" ? `${row.value.length} characters` : JSON.stringify(row.value),
      outcome: row.refused ? `422 naming ${row.refused}` : "200",
    })),
  )("game entry $field of $sent → $outcome", async ({ field, value, refused }) => {
    const { call, sync } = await freshCatalog();
    const entry = { id: "jogo", name: "Jogo", [field]: value };
    const response = await sync({ games: [entry] });
    if (refused === null) {
      expect(response.body).toEqual({ upserted: 1, deactivated: 0 });
      expect((await call("GET", "/v1/games")).body.data[0]).toMatchObject(entry);
    } else {
      expectError(response, 422, "validation_failed", refused);
    }
  });
});
