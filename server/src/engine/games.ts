import { textValue } from "./conditions.js";
import type { GameFilterScope, GameLists } from "./config.js";

/*
 * The game an event is about, from its meta (`game_type`, `game_provider`,
 * `game_id`): its category, provider and game id, each undefined when absent.
 * Numeric game ids are common in casino catalogs, so numbers count as their text.
 */

function isEmpty(lists: GameLists): boolean {
  return lists.categories.length === 0 && lists.providers.length === 0 && lists.games.length === 0;
}

/**
 * The set of games the lists describe contains the game: it matches an entry
 * of any of the three lists. The game comes as its three parts, not an
 * object: filters are checked for every rule, mission and tournament of
 * every event, and a club-wide exclude makes every check read the game.
 */
function inSet(lists: GameLists, category: string | undefined, provider: string | undefined, gameId: string | undefined): boolean {
  if (category !== undefined && lists.categories.includes(category)) return true;
  if (provider !== undefined && lists.providers.includes(provider)) return true;
  if (gameId === undefined) return false;
  // A loop, not `some` with a closure.
  for (const entry of lists.games) if (entry.id === gameId) return true;
  return false;
}

/**
 * True when the game in `meta` passes the filter: `only`, when not empty,
 * must contain it (a category, a provider or a game id matches; the lists add
 * up), and neither `exclude` nor `globalExclude` (the club-wide
 * `games.exclude`) may. An event without game meta is in no set, so it passes
 * every exclude and fails a non-empty `only`.
 */
export function matchesGameFilter(filter: Partial<GameFilterScope> | undefined, meta: Record<string, unknown>, globalExclude?: GameLists): boolean {
  const only = filter?.only !== undefined && !isEmpty(filter.only) ? filter.only : undefined;
  const exclude = filter?.exclude;
  // Most filters are empty: the event's game is read only for one that is not.
  if (only === undefined && exclude === undefined && globalExclude === undefined) return true;
  const category = textValue(meta.game_type);
  const provider = textValue(meta.game_provider);
  const gameId = textValue(meta.game_id);
  if (only !== undefined && !inSet(only, category, provider, gameId)) return false;
  if (exclude !== undefined && inSet(exclude, category, provider, gameId)) return false;
  return globalExclude === undefined || !inSet(globalExclude, category, provider, gameId);
}
