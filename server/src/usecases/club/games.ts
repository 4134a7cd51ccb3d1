import type { components } from "../../../../generated/types.js";
import { Game } from "../../db/entities/index.js";
import { newId } from "../../db/ids.js";
import type { Database } from "../../db/orm.js";
import type { Scope } from "../../db/scope.js";
import { takeScopeLock } from "../../db/write-lock.js";
import { validationFailed } from "../shared/errors.js";

export type GameView = components["schemas"]["Game"];
export type GamesSync = components["schemas"]["GamesSync"];
export type GamesSynced = components["schemas"]["GamesSynced"];

export interface GameListQuery {
  active?: boolean;
  category?: string;
  provider?: string;
  limit?: number;
  starting_after?: string;
}

/** Rows per INSERT … ON CONFLICT: well under SQLite's and PostgreSQL's bound-parameter limits. */
const UPSERT_BATCH = 500;

function gameView(game: Game): GameView {
  return {
    id: game.gameId,
    name: game.name,
    provider: game.provider ?? null,
    category: game.category ?? null,
    image_url: game.imageUrl ?? null,
    active: game.active,
    updated_at: game.updatedAt.toISOString(),
  };
}

/** The first id listed twice, as a 422 naming both entries. */
function repeatedId(games: GamesSync["games"]): string | null {
  const seen = new Map<string, number>();
  for (const [index, game] of games.entries()) {
    const first = seen.get(game.id);
    if (first !== undefined) return `body.games[${index}].id repeats body.games[${first}].id (${JSON.stringify(game.id)})`;
    seen.set(game.id, index);
  }
  return null;
}

/**
 * POST /v1/games: upserts the listed games (all active afterwards) and, with
 * `deactivate_missing`, deactivates the catalog's other games. One transaction,
 * so a reader never sees half a sync.
 */
export async function syncGames(db: Database, scope: Scope, input: GamesSync, now = new Date()): Promise<GamesSynced> {
  const problem = repeatedId(input.games);
  if (problem) throw validationFailed(problem);
  return db.em().transactional(async (em) => {
    await takeScopeLock(em, scope, "games");
    const rows = input.games.map((game) => ({
      id: newId("gam"),
      ...scope,
      gameId: game.id,
      name: game.name,
      provider: game.provider ?? null,
      category: game.category ?? null,
      imageUrl: game.image_url ?? null,
      active: true,
      updatedAt: now,
    }));
    await em.upsertMany(Game, rows, {
      onConflictFields: ["clubId", "env", "gameId"],
      onConflictAction: "merge",
      onConflictExcludeFields: ["id"],
      batchSize: UPSERT_BATCH,
      disableIdentityMap: true,
    });
    const deactivated = input.deactivate_missing
      ? await em.nativeUpdate(Game, { ...scope, active: true, gameId: { $nin: rows.map((row) => row.gameId) } }, { active: false, updatedAt: now })
      : 0;
    return { upserted: rows.length, deactivated };
  });
}

/** GET /v1/games: the catalog ordered by game id, paged Stripe-style after `starting_after`. */
export async function listGames(db: Database, scope: Scope, query: GameListQuery): Promise<{ data: GameView[]; has_more: boolean }> {
  const limit = query.limit ?? 100;
  const where = {
    ...scope,
    ...(query.active === undefined ? {} : { active: query.active }),
    ...(query.category === undefined ? {} : { category: query.category }),
    ...(query.provider === undefined ? {} : { provider: query.provider }),
    ...(query.starting_after === undefined ? {} : { gameId: { $gt: query.starting_after } }),
  };
  const rows = await db.em().find(Game, where, { orderBy: { gameId: "asc" }, limit: limit + 1 });
  return { data: rows.slice(0, limit).map(gameView), has_more: rows.length > limit };
}
