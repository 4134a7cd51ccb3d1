import type { RequiredEntityData } from "@mikro-orm/core";
import type { SqlEntityManager } from "@mikro-orm/knex";
import { TournamentStanding } from "../../db/entities/index.js";
import { shapeOf, type Write } from "../../db/hot/index.js";
import type { Scope } from "../../db/scope.js";
import { STANDING_ADD, STANDING_MAX } from "../../db/evaluation/upserts.js";
import type { ScoreDelta } from "../../engine/tournaments/index.js";

type Row = RequiredEntityData<TournamentStanding>;

/**
 * The tournament score deltas of a group of evaluations, combined per
 * standing in memory and written by `flush` as one multi-row upsert per
 * scoring mode (at most two statements, whatever the number of events and
 * tournaments): `add` rows add to the stored score, `max` rows keep the
 * larger. `reached_at` moves only when the score rises, so ties rank the
 * participant who got there first.
 */
export class StandingWrites {
  private readonly rows = { add: new Map<string, Row>(), max: new Map<string, Row>() };

  add(scope: Scope, participantId: string, deltas: ScoreDelta[], now: Date): void {
    // Per delta (≈ 1,500 in a batch of 500 bets): a new row written out field by field, a pending one changed in
    // place (this map holds the only reference until the flush): spreads cost CPU (docs/performance-log.md).
    for (const delta of deltas) {
      const key = `${participantId}\u0000${delta.tournamentId}\u0000${delta.editionKey}`;
      const rows = this.rows[delta.mode];
      const pending = rows.get(key);
      if (!pending) {
        rows.set(key, {
          clubId: scope.clubId,
          env: scope.env,
          participantId,
          tournamentId: delta.tournamentId,
          editionKey: delta.editionKey,
          score: delta.score,
          reachedAt: delta.reachedAt,
          updatedAt: now,
        });
      } else if (delta.mode === "add") {
        pending.score = pending.score + delta.score;
        pending.reachedAt = later(pending.reachedAt as Date, delta.reachedAt);
        pending.updatedAt = now;
      } else if (delta.score > pending.score) {
        pending.score = delta.score;
        pending.reachedAt = delta.reachedAt;
        pending.updatedAt = now;
      }
    }
  }

  /** The standings as writes for HotStore.writeAll (one upsert per scoring mode). */
  writes(em: SqlEntityManager): Write[] {
    const shape = shapeOf(em, TournamentStanding);
    // Every row's updated_at is its flush's `now`: bound once on PostgreSQL, not 450 copies of one timestamp (HotStore's Write).
    const uniform = ["updatedAt"];
    return [
      {
        insert: shape,
        rows: [...this.rows.add.values()],
        uniform,
        upsert: STANDING_ADD,
      },
      {
        insert: shape,
        rows: [...this.rows.max.values()],
        uniform,
        upsert: STANDING_MAX,
      },
    ];
  }

  clear(): void {
    this.rows.add.clear();
    this.rows.max.clear();
  }
}

function later(a: Date, b: Date): Date {
  return a.getTime() >= b.getTime() ? a : b;
}
