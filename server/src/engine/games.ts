import { textValue } from "./conditions.js";
import type { GameFilterScope, GameLists } from "./config.js";

/**
 * The game an event is about, from its meta (`game_type`, `game_provider`, `game_id`).
 * Numeric game ids are common in casino catalogs, so numbers count as their text.
 */
interface EventGame {
  category: string | undefined;
  provider: string | undefined;
  gameId: string | undefined;
}

function isEmpty(lists: GameLists): boolean {
  return lists.categories.length === 0 && lists.providers.length === 0 && lists.games.length === 0;
}

/** The set of games the lists describe contains the game: it matches an entry of any of the three lists. */
function inSet(lists: GameLists, game: EventGame): boolean {
  if (game.category !== undefined && lists.categories.includes(game.category)) return true;
  if (game.provider !== undefined && lists.providers.includes(game.provider)) return true;
  if (game.gameId === undefined) return false;
  // A loop, not `some` with a closure: filters are checked for every rule, mission and tournament of every event.
  for (const entry of lists.games) if (entry.id === game.gameId) return true;
  return false;
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
  const only = filter?.only !== undefined && !isEmpty(filter.only) ? filter.only : undefined;
  const exclude = filter?.exclude;
  // Most filters are empty: the event's game is read only for one that is not.
  if (only === undefined && exclude === undefined && globalExclude === undefined) return true;
  const game: EventGame = { category: textValue(meta.game_type), provider: textValue(meta.game_provider), gameId: textValue(meta.game_id) };
  if (only !== undefined && !inSet(only, game)) return false;
  if (exclude !== undefined && inSet(exclude, game)) return false;
  return globalExclude === undefined || !inSet(globalExclude, game);
}
