import type { GameFilterScope, GameLists } from "./config.js";

/** The game an event is about, from its meta (`game_type`, `game_provider`, `game_id`). */
interface EventGame {
  category: string | undefined;
  provider: string | undefined;
  gameId: string | undefined;
}

function metaText(meta: Record<string, unknown>, key: string): string | undefined {
  const value = meta[key];
  if (typeof value === "string") return value;
  // Numeric game ids are common in casino catalogs.
  if (typeof value === "number") return String(value);
  return undefined;
}

function eventGame(meta: Record<string, unknown>): EventGame {
  return { category: metaText(meta, "game_type"), provider: metaText(meta, "game_provider"), gameId: metaText(meta, "game_id") };
}

/** Per list: null when the list is empty (no opinion), else whether the game is in it. */
function listMatches(lists: GameLists, game: EventGame): (boolean | null)[] {
  const inList = (values: string[], value: string | undefined) => (values.length === 0 ? null : value !== undefined && values.includes(value));
  return [
    inList(lists.categories, game.category),
    inList(lists.providers, game.provider),
    inList(
      lists.games.map((entry) => entry.id),
      game.gameId,
    ),
  ];
}

/**
 * True when the game in `meta` passes the filter. Every non-empty `only` list
 * must contain the game (categories and providers together narrow, e.g. only
 * "video-slots" from "pragmatic"); a game in any `exclude` list fails, and so
 * does one in `globalExclude` (the club-wide `games.exclude`). An event without
 * game meta passes every exclude list and fails any non-empty `only` list.
 */
export function matchesGameFilter(
  filter: Partial<GameFilterScope> | undefined,
  meta: Record<string, unknown>,
  globalExclude?: GameLists,
): boolean {
  const game = eventGame(meta);
  if (filter?.only && listMatches(filter.only, game).some((match) => match === false)) return false;
  const excludes = [filter?.exclude, globalExclude].filter((lists): lists is GameLists => lists !== undefined);
  return !excludes.some((lists) => listMatches(lists, game).some((match) => match === true));
}
