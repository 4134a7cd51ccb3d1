import type { HotStore, Upsert } from "../hot/index.js";

/*
 * How an evaluation's rows meet the stored ones (HotStore.insert's upserts):
 * increments add to the stored values atomically under the row's lock, so
 * two transactions never lose each other's additions.
 */

/** Balances: the amount added to the stored one, created on first use. */
export const BALANCE_ADD: Upsert = {
  conflict: ["participant_id", "currency"],
  set: "amount = balances.amount + excluded.amount, updated_at = excluded.updated_at",
};

/** Mission progress: the latest progress, the first completion and claim times already stored kept. */
export const MISSION_PROGRESS_KEEP_FIRST: Upsert = {
  conflict: ["participant_id", "mission_id", "period_key"],
  set:
    "progress = excluded.progress, completed_at = coalesce(mission_progress.completed_at, excluded.completed_at), " +
    "claimed_at = coalesce(mission_progress.claimed_at, excluded.claimed_at), updated_at = excluded.updated_at",
};

/** Leaderboard entries: the points added to the stored ones. */
export const LEADERBOARD_ADD: Upsert = {
  conflict: ["participant_id", "campaign_id"],
  set: "points = leaderboard_entries.points + excluded.points, updated_at = excluded.updated_at",
};

/**
 * How a flush's rule run days are added to the stored ones: runs added, the
 * later last run kept, and the batch's amounts added unit by unit into the
 * stored object (one pass over the batch's few units; a unit new to the day
 * joins it; a batch that granted nothing leaves the stored amounts unparsed).
 * Additive rather than the engine's absolute counters: the engine's state
 * holds today's amounts only for the units a daily cap names (loadRuleRuns
 * reads no others), and an addition stays exactly-once without relying on
 * what was loaded — each run is gathered once, in the transaction that marks
 * its event processed under the participant's lock, and PostgreSQL's
 * `on conflict do update` adds to the row as committed (row-locked), so two
 * serve processes never lose each other's runs.
 */
export const RULE_RUN_DAY_SUMS = {
  // The batch's units by jsonb_object_keys in a select list (a value per call), not jsonb_each_text in FROM (a tuplestore
  // per row): less backend CPU per upsert (docs/performance-log.md#rule-run-day-upsert).
  postgresql:
    "runs = rule_run_days.runs + excluded.runs, amounts = case when excluded.amounts = '{}'::jsonb then rule_run_days.amounts else rule_run_days.amounts || " +
    "(select jsonb_object_agg(k.key, coalesce(cast(rule_run_days.amounts ->> k.key as bigint), 0) + cast(excluded.amounts ->> k.key as bigint)) " +
    "from (select jsonb_object_keys(excluded.amounts) as key) as k) end, " +
    "last_run_at = greatest(rule_run_days.last_run_at, excluded.last_run_at)",
  sqlite:
    "runs = rule_run_days.runs + excluded.runs, amounts = case when excluded.amounts = '{}' then rule_run_days.amounts else json_patch(rule_run_days.amounts, " +
    "(select json_group_object(a.key, coalesce(rule_run_days.amounts ->> a.key, 0) + a.value) from json_each(excluded.amounts) as a)) end, " +
    "last_run_at = max(rule_run_days.last_run_at, excluded.last_run_at)",
};

/** Rule run days: added to the stored day (see RULE_RUN_DAY_SUMS), in the store's dialect. */
export function ruleRunDayAdd(store: HotStore): Upsert {
  return { conflict: ["participant_id", "rule_id", "day_key"], set: RULE_RUN_DAY_SUMS[store.dialect] };
}

const STANDINGS = "tournament_standings";
const STANDING_KEY = ["participant_id", "tournament_id", "edition_key"];
const BIGGER = `excluded.score > ${STANDINGS}.score`;

/**
 * Tournament standings scored by adding: the score added, `reached_at` moved
 * only when the score rises (ties rank who got there first).
 */
export const STANDING_ADD: Upsert = {
  conflict: STANDING_KEY,
  set:
    `score = ${STANDINGS}.score + excluded.score, ` +
    `reached_at = case when excluded.reached_at > ${STANDINGS}.reached_at then excluded.reached_at else ${STANDINGS}.reached_at end, updated_at = excluded.updated_at`,
};

/** Tournament standings scored by the best: the larger score kept, with its `reached_at`. */
export const STANDING_MAX: Upsert = {
  conflict: STANDING_KEY,
  set:
    `score = case when ${BIGGER} then excluded.score else ${STANDINGS}.score end, ` +
    `reached_at = case when ${BIGGER} then excluded.reached_at else ${STANDINGS}.reached_at end, updated_at = excluded.updated_at`,
};
