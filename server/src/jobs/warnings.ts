import type { Scope } from "../db/scope.js";
import type { SqlEntityManager } from "@mikro-orm/knex";
import { Delivery, Participant, StaffWarning } from "../db/entities/index.js";
import { newId } from "../db/ids.js";
import type { Database } from "../db/orm.js";

/** The seed's limit: a delivery still unconfirmed 48 hours after it was created warns the club's staff. */
export const UNCONFIRMED_DELIVERY_WARNING_MS = 48 * 3_600_000;

/**
 * Adds a staff warning unless one already exists for the same (kind,
 * subject); true when it was added. `ON CONFLICT DO NOTHING` rather than
 * catching the unique violation, so it is safe inside a PostgreSQL
 * transaction (a failed statement there would abort the whole transaction).
 */
export async function insertWarning(em: SqlEntityManager, warning: Omit<StaffWarning, "id">): Promise<boolean> {
  const result = await em
    .createQueryBuilder(StaffWarning)
    .insert({ id: newId("wrn"), ...warning })
    .onConflict(["kind", "subjectId"])
    .ignore()
    .execute("run");
  return result.affectedRows === 1;
}

/**
 * Warns the club's staff once about every delivery still `pending` 48 hours
 * (or more) after it was created; returns how many warnings were added. Each
 * delivery is marked (`warnedAt`) and warned in one transaction, the mark
 * being a conditional update, so concurrent scans and repeated scans warn
 * once. Run periodically by the worker.
 */
export async function warnUnconfirmedDeliveries(db: Database, now: Date, batchSize = 200, scope?: Scope): Promise<number> {
  const cutoff = new Date(now.getTime() - UNCONFIRMED_DELIVERY_WARNING_MS);
  let warned = 0;
  for (;;) {
    const em = db.em();
    const stale = await em.find(
      Delivery,
      { ...scope, status: "pending", warnedAt: null, createdAt: { $lte: cutoff } },
      { orderBy: { createdAt: "asc" }, limit: batchSize },
    );
    const participants = await em.find(Participant, { id: { $in: [...new Set(stale.map((d) => d.participantId))] } });
    const externalIds = new Map(participants.map((p) => [p.id, p.externalId]));
    for (const delivery of stale) {
      await em.transactional(async (tx) => {
        const marked = await tx.nativeUpdate(Delivery, { id: delivery.id, warnedAt: null }, { warnedAt: now });
        if (marked !== 1) return;
        const who = externalIds.get(delivery.participantId) ?? delivery.participantId;
        const added = await insertWarning(tx, {
          clubId: delivery.clubId,
          env: delivery.env,
          kind: "delivery_unconfirmed",
          subjectId: delivery.id,
          message: `Delivery ${delivery.id} (${delivery.rewardCode} for ${who}) is still pending after 48 hours`,
          createdAt: now,
        });
        if (added) warned += 1;
      });
    }
    if (stale.length < batchSize) return warned;
  }
}
