import { Balance, MissionProgress, Participant } from "../../server/src/db/entities/index.js";
import type { Database } from "../../server/src/db/orm.js";
import type { Env } from "../../server/src/db/scope.js";

/**
 * What the engine keeps of a participant (XP, level, tier, tags, counts,
 * balances, missions), read fresh from the database without ids or times: two
 * participants fed the same events by different paths compare equal.
 */
export async function participantStateOf(db: Database, where: { clubId: string; env?: Env }, externalId: string) {
  const em = db.em().fork();
  const row = await em.findOneOrFail(Participant, { ...where, externalId });
  const balances = await em.find(Balance, { participantId: row.id }, { orderBy: { currency: "asc" } });
  const missions = await em.find(MissionProgress, { participantId: row.id }, { orderBy: { missionId: "asc", periodKey: "asc" } });
  return {
    xp: row.xp,
    level: row.level,
    tier: row.tierCode,
    tags: row.tags,
    eventCounts: row.eventCounts,
    balances: Object.fromEntries(balances.map((balance) => [balance.currency, balance.amount])),
    missions: missions.map((m) => ({
      mission: m.missionId,
      period: m.periodKey,
      progress: m.progress,
      completed: m.completedAt !== null,
      claimed: m.claimedAt !== null,
    })),
  };
}
