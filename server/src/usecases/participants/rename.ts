import type { SqlEntityManager } from "@mikro-orm/knex";
import type { components } from "../../../../generated/types.js";
import { MAX_TAGS } from "../../engine/session.js";
import { progressFor } from "../../engine/progression.js";
import { Participant } from "../../db/entities/index.js";
import type { Database } from "../../db/orm.js";
import { findParticipantForUpdate } from "../../db/participants/locks.js";
import type { Scope } from "../../db/scope.js";
import { getPublishedConfig, type PublishedConfig } from "../club/index.js";
import { ApiError, validationFailed } from "../shared/errors.js";
import { mergeParticipantRows } from "./merge.js";
import { loadBalances, participantNotFound } from "./participants.js";
import { balancesInMainUnits } from "./views.js";

export type ParticipantRename = components["schemas"]["ParticipantRename"];
export type ParticipantRenameReport = components["schemas"]["ParticipantRenameReport"];
type RenameSnapshot = components["schemas"]["RenameSnapshot"];

/** Carries the report out of a dry run's transaction, whose rollback it causes. */
class DryRunRollback extends Error {
  constructor(readonly report: ParticipantRenameReport) {
    super("dry run: rolled back");
  }
}

async function snapshot(em: SqlEntityManager, participant: Participant, config: PublishedConfig | null): Promise<RenameSnapshot> {
  const balances = balancesInMainUnits(config?.config, await loadBalances(em, participant.id));
  return { id: participant.id, external_id: participant.externalId, xp: participant.xp, level: participant.level, balances };
}

function sumCounts(a: Record<string, number>, b: Record<string, number>): Record<string, number> {
  const total = { ...a };
  for (const [key, n] of Object.entries(b)) total[key] = (total[key] ?? 0) + n;
  return total;
}

/**
 * The survivor's own profile after absorbing `merged`: XP and event counts
 * add up, level and tier follow the new XP (through the published
 * progression, when there is one), tags are united (the survivor's first, up
 * to the tag limit), and a profile field or flag the survivor lacks is taken
 * from the merged participant.
 */
function absorbed(survivor: Participant, merged: Participant, published: PublishedConfig | null) {
  const xp = survivor.xp + merged.xp;
  const progress = published && progressFor(published.config.progression, xp);
  const eventCounts = sumCounts(survivor.eventCounts, merged.eventCounts);
  return {
    xp,
    level: progress ? progress.level : Math.max(survivor.level, merged.level),
    tierCode: progress ? progress.tier.code : survivor.tierCode,
    eventCounts,
    tags: [...new Set([...survivor.tags, ...merged.tags])].slice(0, MAX_TAGS),
    flags: { ...merged.flags, ...survivor.flags },
    displayName: survivor.displayName ?? merged.displayName,
    avatarUrl: survivor.avatarUrl ?? merged.avatarUrl,
    email: survivor.email ?? merged.email,
    phone: survivor.phone ?? merged.phone,
    referralCode: survivor.referralCode ?? merged.referralCode,
  };
}

/**
 * POST /v1/participants/{external_id}/rename. The participant keeps its id and
 * history and takes `new_external_id`; afterwards the old external id answers
 * 404. When a participant already has the new id: 409 `participant_exists`,
 * unless `merge`, which moves every row of that participant into this one
 * (balances and leaderboard points added, duplicates dropped and counted) and
 * deletes it. Both rows are locked for the duration (PostgreSQL), so events
 * for either wait. `dry_run` does all of it and rolls it back.
 */
export async function renameParticipant(
  db: Database,
  scope: Scope,
  externalId: string,
  input: ParticipantRename,
  now = new Date(),
): Promise<ParticipantRenameReport> {
  const to = input.new_external_id;
  if (to === externalId) throw validationFailed("body.new_external_id must differ from the current external_id");
  const config = await getPublishedConfig(db, scope);
  try {
    return await db.em().transactional(async (em) => {
      const survivor = await findParticipantForUpdate(em, { ...scope, externalId });
      if (!survivor) throw participantNotFound(externalId);
      const existing = await findParticipantForUpdate(em, { ...scope, externalId: to });
      if (existing && !input.merge) {
        throw new ApiError(
          409,
          "participant_exists",
          `A participant with external_id ${JSON.stringify(to)} exists; send merge: true to merge it into this one.`,
        );
      }
      const before = await snapshot(em, survivor, config);
      let merged: ParticipantRenameReport["merged"] = null;
      let moved: Record<string, number> = {};
      let changes = {};
      if (existing) {
        const mergedBefore = await snapshot(em, existing, config);
        const counts = await mergeParticipantRows(em, existing.id, survivor.id);
        merged = { ...mergedBefore, duplicates_dropped: counts.duplicatesDropped };
        moved = counts.moved;
        changes = absorbed(survivor, existing, config);
        await em.nativeDelete(Participant, { id: existing.id });
      }
      await em.nativeUpdate(Participant, { id: survivor.id }, { ...changes, externalId: to, updatedAt: now });
      const after = await snapshot(em, await em.refreshOrFail(survivor), config);
      const report: ParticipantRenameReport = {
        env: scope.env,
        from: externalId,
        to,
        dry_run: input.dry_run ?? false,
        before,
        merged,
        after,
        rewritten: { "participants.external_id": 1 },
        moved,
      };
      if (input.dry_run) throw new DryRunRollback(report);
      return report;
    });
  } catch (err) {
    if (err instanceof DryRunRollback) return err.report;
    throw err;
  }
}
