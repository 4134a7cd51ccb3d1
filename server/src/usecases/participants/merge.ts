import type { EntitySchema } from "@mikro-orm/core";
import type { SqlEntityManager } from "@mikro-orm/knex";
import {
  AffiliateAttribution,
  Badge,
  Balance,
  CashbackCredit,
  CodeRedemption,
  CheckinClaim,
  CurrencyLot,
  Delivery,
  Event,
  LeaderboardEntry,
  LedgerEntry,
  TournamentStanding,
  MissionProgress,
  Notification,
  ParticipantReward,
  Redemption,
  Referral,
  RuleDedupeKey,
  RuleRunDay,
  WheelSeed,
  WheelSpin,
} from "../../db/entities/index.js";
import { addIntoSurvivorRows, columnsOf, deleteRowsTheSurvivorHas, repointRows } from "../../db/participants/merge-statements.js";

/**
 * How each participant-owned table is merged when one participant is merged
 * into another (rename with `merge`):
 * - `move`: every row is repointed;
 * - `dedupe`: a row whose identity (`keys`) the surviving participant already
 *   has is dropped and counted, the rest repointed; `keys: []` means one row
 *   per participant. A NULL key never matches, so such rows always move.
 * - `sum`: a row whose identity the survivor already has is added into the
 *   survivor's row (`amount`), the rest repointed.
 * - `ruleDays`: rule run days (RuleRunDay), `sum` with a JSON column: a day
 *   the survivor also has adds runs and amounts unit by unit and keeps the
 *   later last run, in JS (merges are rare; the rows are one per rule and day
 *   a limited rule ran).
 * A table missing here would keep rows pointing at a deleted participant, so
 * every entity with a participant column must be listed (the tests check it).
 */
interface MergeRule {
  entity: EntitySchema<any, any>;
  owner: string;
  kind: "move" | "dedupe" | "sum" | "ruleDays";
  keys: string[];
  amount?: string;
}

type Props<T> = Extract<keyof T, string>;

const move = <T>(entity: EntitySchema<T, any>, owner: Props<T> = "participantId" as Props<T>): MergeRule => ({ entity, owner, kind: "move", keys: [] });
const dedupe = <T>(entity: EntitySchema<T, any>, keys: Props<T>[], owner: Props<T> = "participantId" as Props<T>): MergeRule => ({
  entity,
  owner,
  kind: "dedupe",
  keys,
});
const sum = <T>(entity: EntitySchema<T, any>, keys: Props<T>[], amount: Props<T>): MergeRule => ({ entity, owner: "participantId", kind: "sum", keys, amount });

export const MERGE_RULES: readonly MergeRule[] = [
  sum(Balance, ["currency"], "amount"),
  move(LedgerEntry),
  move(CurrencyLot),
  dedupe(Event, ["externalEventId"]),
  // A key either fired for stays fired for the survivor: a rule still fires at most once per key.
  dedupe(RuleDedupeKey, ["ruleId", "dedupeKey"]),
  { entity: RuleRunDay, owner: "participantId", kind: "ruleDays", keys: ["ruleId", "dayKey"] },
  dedupe(MissionProgress, ["missionId", "periodKey"]),
  move(ParticipantReward),
  move(Delivery),
  dedupe(Badge, ["badgeCode"]),
  sum(LeaderboardEntry, ["campaignId"], "points"),
  // Tournament scores of the same edition add up (a `max_ratio` best is added too: merges are rare and this keeps the rule simple).
  sum(TournamentStanding, ["tournamentId", "editionKey"], "score"),
  move(Redemption),
  move(Referral, "referrerId"),
  dedupe(Referral, [], "referredId"),
  dedupe(AffiliateAttribution, []),
  move(Notification),
  dedupe(CheckinClaim, ["dayKey"]),
  move(WheelSpin),
  // Seed pairs move with the spins drawn from them, so those spins stay verifiable; the survivor may then hold two
  // active pairs: it draws from the newest, and its next rotation reveals both (see usecases/wheel/fair-seeds.ts).
  move(WheelSeed),
  dedupe(CashbackCredit, ["dayKey"]),
  // Both participants' code redemptions count towards a code's per-participant limit after the merge.
  move(CodeRedemption),
];

export interface MergeCounts {
  /** Per table, rows of the merged participant now belonging to the survivor (repointed or added into its rows). */
  moved: Record<string, number>;
  /** Per table, rows of the merged participant dropped because the survivor had the same row. */
  duplicatesDropped: Record<string, number>;
}

function add(counts: Record<string, number>, table: string, n: number): void {
  if (n > 0) counts[table] = (counts[table] ?? 0) + n;
}

/**
 * Moves every row of participant `fromId` to `intoId` by the rules above, in
 * the caller's transaction. Set-based statements, so a participant with a long
 * history merges without loading its rows.
 */
export async function mergeParticipantRows(em: SqlEntityManager, fromId: string, intoId: string): Promise<MergeCounts> {
  const counts: MergeCounts = { moved: {}, duplicatesDropped: {} };
  for (const rule of MERGE_RULES) {
    const c = columnsOf(em, rule);
    if (rule.kind === "ruleDays") {
      add(counts.moved, c.table, await mergeRuleRunDays(em, fromId, intoId));
      continue;
    }
    if (rule.kind === "sum") {
      // The survivor's row gains the merged participant's amount, then the merged row goes.
      await addIntoSurvivorRows(em, c, fromId, intoId);
      add(counts.moved, c.table, await deleteRowsTheSurvivorHas(em, c, fromId, intoId));
    } else if (rule.kind === "dedupe") {
      add(counts.duplicatesDropped, c.table, await deleteRowsTheSurvivorHas(em, c, fromId, intoId));
    }
    add(counts.moved, c.table, await repointRows(em, c, fromId, intoId));
  }
  return counts;
}

/**
 * The merged participant's rule run days added into the survivor's days of
 * the same rule and club day (runs and amounts per unit summed, the later
 * last run), the others repointed; the number of days moved either way.
 */
async function mergeRuleRunDays(em: SqlEntityManager, fromId: string, intoId: string): Promise<number> {
  // Plain reads, outside the identity map: the rows change below by native statements.
  const merged = await em.find(RuleRunDay, { participantId: fromId }, { disableIdentityMap: true });
  if (merged.length === 0) return 0;
  const survivor = new Map(
    (await em.find(RuleRunDay, { participantId: intoId }, { disableIdentityMap: true })).map((day) => [`${day.ruleId}\u0000${day.dayKey}`, day]),
  );
  for (const day of merged) {
    const same = survivor.get(`${day.ruleId}\u0000${day.dayKey}`);
    if (same) {
      const amounts = { ...same.amounts };
      for (const unit in day.amounts) amounts[unit] = (amounts[unit] ?? 0) + day.amounts[unit];
      await em.nativeUpdate(
        RuleRunDay,
        { participantId: intoId, ruleId: same.ruleId, dayKey: same.dayKey },
        {
          runs: same.runs + day.runs,
          amounts,
          lastRunAt: day.lastRunAt > same.lastRunAt ? day.lastRunAt : same.lastRunAt,
        },
      );
      await em.nativeDelete(RuleRunDay, { participantId: fromId, ruleId: day.ruleId, dayKey: day.dayKey });
    } else {
      await em.nativeUpdate(RuleRunDay, { participantId: fromId, ruleId: day.ruleId, dayKey: day.dayKey }, { participantId: intoId });
    }
  }
  return merged.length;
}
