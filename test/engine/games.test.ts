import { describe, expect, it } from "vitest";
import { matchesGameFilter } from "../../server/src/engine/games.js";
import { gameLists, gameScope } from "./fixtures.js";

const slot = { game_id: "gates-of-olympus", game_type: "video-slots", game_provider: "pragmatic" };
const aviator = { game_id: "aviator", game_type: "crash", game_provider: "spribe" };
const numericId = { game_id: 4512, game_type: "roulette", game_provider: "evolution" };
const noGame = { method: "pix" };

describe("matchesGameFilter", () => {
  it("passes everything without a filter or with empty lists", () => {
    expect(matchesGameFilter(undefined, slot)).toBe(true);
    expect(matchesGameFilter(gameScope({}), slot)).toBe(true);
    expect(matchesGameFilter(gameScope({}), noGame)).toBe(true);
  });

  it.each([
    ["category", { categories: ["video-slots"] }, true, false],
    ["provider", { providers: ["pragmatic"] }, true, false],
    ["game id", { games: [{ id: "gates-of-olympus" }] }, true, false],
    ["category of another game", { categories: ["crash"] }, false, true],
  ])("only by %s", (_what, only, slotPasses, aviatorPasses) => {
    expect(matchesGameFilter(gameScope({ only }), slot)).toBe(slotPasses);
    expect(matchesGameFilter(gameScope({ only }), aviator)).toBe(aviatorPasses);
  });

  it("adds the only lists up: a category or a single game", () => {
    const filter = gameScope({ only: { categories: ["crash"], games: [{ id: "gates-of-olympus", name: "Gates of Olympus" }] } });
    expect(matchesGameFilter(filter, slot)).toBe(true);
    expect(matchesGameFilter(filter, aviator)).toBe(true);
    expect(matchesGameFilter(filter, numericId)).toBe(false);
  });

  it.each([
    ["category", { categories: ["video-slots"] }],
    ["provider", { providers: ["pragmatic"] }],
    ["game id", { games: [{ id: "gates-of-olympus" }] }],
  ])("exclude by %s", (_what, exclude) => {
    expect(matchesGameFilter(gameScope({ exclude }), slot)).toBe(false);
    expect(matchesGameFilter(gameScope({ exclude }), aviator)).toBe(true);
  });

  it("lets exclude win over only", () => {
    const filter = gameScope({ only: { providers: ["pragmatic"] }, exclude: { games: [{ id: "gates-of-olympus" }] } });
    expect(matchesGameFilter(filter, slot)).toBe(false);
    expect(matchesGameFilter(filter, { ...slot, game_id: "sweet-bonanza" })).toBe(true);
  });

  it("applies the club-wide exclude to every filter, including none", () => {
    const clubExclude = gameLists({ providers: ["spribe"] });
    expect(matchesGameFilter(undefined, aviator, clubExclude)).toBe(false);
    expect(matchesGameFilter(gameScope({ only: { categories: ["crash"] } }), aviator, clubExclude)).toBe(false);
    expect(matchesGameFilter(undefined, slot, clubExclude)).toBe(true);
  });

  it("lets an event without game meta pass excludes and fail a non-empty only", () => {
    expect(matchesGameFilter(gameScope({ exclude: { categories: ["crash"] } }), noGame, gameLists({ providers: ["spribe"] }))).toBe(true);
    expect(matchesGameFilter(gameScope({ only: { categories: ["crash"] } }), noGame)).toBe(false);
  });

  it("matches numeric game ids by their text", () => {
    expect(matchesGameFilter(gameScope({ only: { games: [{ id: "4512" }] } }), numericId)).toBe(true);
  });
});
