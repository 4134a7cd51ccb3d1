import { textValue } from "./conditions.js";
import type { GameFilterScope, GameLists } from "./config.js";

/** The game an event is about, from its meta (`game_type`, `game_provider`, `game_id`). */
interface EventGame {
  category: string | undefined;
  provider: string | undefined;
  gameId: string | undefined;
}

function eventGame(meta: Record<string, unknown>): EventGame {
  // Numeric game ids are common in casino catalogs, so numbers count as their text.
  return { category: textValue(meta.game_type), provider: textValue(meta.game_provider), gameId: textValue(meta.game_id) };
}

function isEmpty(lists: GameLists): boolean {
  return lists.categories.length === 0 && lists.providers.length === 0 && lists.games.length === 0;
}

/** The set of games the lists describe contains the game: it matches an entry of any of the three lists. */
function inSet(lists: GameLists, game: EventGame): boolean {
  return (
    (game.category !== undefined && lists.categories.includes(game.category)) ||
    (game.provider !== undefined && lists.providers.includes(game.provider)) ||
    (game.gameId !== undefined && lists.games.some((entry) => entry.id === game.gameId))
  );
}

/**
 * True when the game in `meta` passes the filter: `only`, when not empty,
 * must contain it (a category, a provider or a game id matches; the lists add
 * up), and neither `exclude` nor `globalExclude` (the club-wide
 * `games.exclude`) may. An event without game meta is in no set, so it passes
 * every exclude and fails a non-empty `only`.
 */
export function matchesGameFilter(
  filter: Partial<GameFilterScope> | undefined,
  meta: Record<string, unknown>,
  globalExclude?: GameLists,
): boolean {
  const game = eventGame(meta);
  if (filter?.only && !isEmpty(filter.only) && !inSet(filter.only, game)) return false;
  if (filter?.exclude !== undefined && inSet(filter.exclude, game)) return false;
  return globalExclude === undefined || !inSet(globalExclude, game);
}
