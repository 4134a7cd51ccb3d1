import { raw, type FilterQuery } from "@mikro-orm/core";
import type { SqlEntityManager } from "@mikro-orm/knex";
import { TournamentStanding } from "../entities/index.js";
import type { Scope } from "../scope.js";

/* Aggregates over tournament standings, each one statement. */

/** The distinct tournament ids of the standings matching `where`. */
export async function standingTournamentIds(em: SqlEntityManager, where: FilterQuery<TournamentStanding>): Promise<string[]> {
  const rows = await em.createQueryBuilder(TournamentStanding).select("tournamentId", true).where(where).execute<{ tournamentId: string }[]>("all");
  return rows.map((row) => row.tournamentId);
}

/** Participants with a score in the edition, and their total score (stored units), in one aggregate. */
export async function editionTotals(
  em: SqlEntityManager,
  scope: Scope,
  tournamentId: string,
  editionKey: string,
): Promise<{ participants: number; total: number }> {
  const [row] = await em
    .createQueryBuilder(TournamentStanding)
    .select([raw("count(*) as participants"), raw("coalesce(sum(score), 0) as total")])
    .where({ ...scope, tournamentId, editionKey })
    .execute<{ participants: number | string; total: number | string }[]>("all");
  return { participants: Number(row?.participants ?? 0), total: Number(row?.total ?? 0) };
}

/** The edition's total score (stored units). */
export async function editionScoreTotal(em: SqlEntityManager, scope: Scope, tournamentId: string, editionKey: string): Promise<number> {
  const [{ total }] = await em
    .createQueryBuilder(TournamentStanding)
    .select([raw("coalesce(sum(score), 0) as total")])
    .where({ ...scope, tournamentId, editionKey })
    .execute<{ total: number | string }[]>("all");
  return Number(total);
}
