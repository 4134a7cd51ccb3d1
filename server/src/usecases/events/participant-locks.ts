import type { SqlEntityManager } from "@mikro-orm/knex";
import type { ClubConfig } from "../../engine/config.js";
import { OutboxMessage, Participant } from "../../db/entities/index.js";
import { shapeOf, type HotStore } from "../../db/hot/index.js";
import { lockByExternalId, type ParticipantSnapshot } from "../../db/participants/locks.js";
import type { Scope } from "../../db/scope.js";
import { newParticipantRow, participantCreatedMessage } from "../participants/index.js";

/*
 * The event path's participant locks (db/participants/locks.ts): one
 * statement locks a whole step's participants and returns the columns the
 * engine reads, and the absent ones are created with one insert, instead of
 * an ORM query (and hydration) per participant.
 */

/**
 * Locks the participants with `externalIds`, creating those seen for the
 * first time (newParticipantRow, with their `participant.created` in the
 * outbox) in one insert; by external id. A participant another transaction
 * created meanwhile is skipped by the insert and locked as it stored it.
 * `onCreate` is told before anything is created.
 */
export async function lockOrCreateParticipants(
  em: SqlEntityManager,
  store: HotStore,
  scope: Scope,
  externalIds: string[],
  at: { now: Date; config: () => Promise<ClubConfig>; onCreate?: () => void },
): Promise<Map<string, ParticipantSnapshot>> {
  const locked = await lockByExternalId(store, scope, externalIds);
  // Sorted: concurrent creators insert shared keys in the same order, so neither waits on a key the other holds.
  const absent = externalIds.filter((externalId) => !locked.has(externalId)).sort();
  if (absent.length === 0) return locked;
  at.onCreate?.();
  const config = await at.config();
  const rows = absent.map((externalId) => newParticipantRow(scope, config, { external_id: externalId }, at.now));
  const inserted = await store.insertAbsent(shapeOf(em, Participant), rows, ["club_id", "env", "external_id"]);
  const created = rows.filter((row) => inserted.has(row.id));
  await store.insert(
    shapeOf(em, OutboxMessage),
    created.map((row) => participantCreatedMessage(scope, row, at.now)),
  );
  // The inserting transaction holds its new rows until it commits: they are as locked as the others.
  for (const row of created) locked.set(row.externalId, insertedSnapshot(row));
  const raced = absent.filter((externalId) => !locked.has(externalId));
  if (raced.length > 0) for (const [externalId, participant] of await lockByExternalId(store, scope, raced)) locked.set(externalId, participant);
  return locked;
}

/** A row of newParticipantRow as the lock statement would return it. */
function insertedSnapshot(row: ReturnType<typeof newParticipantRow>): ParticipantSnapshot {
  return {
    id: row.id,
    externalId: row.externalId,
    xp: Number(row.xp),
    level: row.level,
    tierCode: row.tierCode ?? null,
    tags: row.tags,
    eventCounts: row.eventCounts as Record<string, number>,
    peakMonth: null,
    peakLevel: null,
    priorMonthPeakLevel: null,
    displayName: row.displayName,
    email: row.email ?? null,
    phone: row.phone ?? null,
  };
}
