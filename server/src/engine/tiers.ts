import type { ProgressionConfig, TierConfig } from "./config.js";
import { monthKey, previousMonthKey } from "./time.js";
import type { ParticipantState } from "./types.js";

export interface NextTier {
  code: string;
  name: string;
  startsAtLevel: number;
}

function firstLevel(tier: TierConfig): number {
  return tier.levels[0];
}

function containsLevel(tier: TierConfig, level: number): boolean {
  const first = tier.levels[0];
  const last = tier.levels[1];
  return level >= first && (last === null || level <= last);
}

/**
 * The tier whose [first, last] level range contains `level` (last null = open).
 * A level in a gap between configured ranges keeps the tier that starts
 * closest below it, and a level below every range gets the lowest tier, so a
 * participant always has a tier (the profile requires one).
 */
export function tierForLevel(tiers: TierConfig[], level: number): TierConfig {
  // Loops without closures: every evaluation asks (tierAfterLevelChange).
  for (const tier of tiers) if (containsLevel(tier, level)) return tier;
  const byFirstLevel = [...tiers].sort((a, b) => firstLevel(a) - firstLevel(b));
  const below = byFirstLevel.filter((tier) => firstLevel(tier) <= level);
  return below.length > 0 ? below[below.length - 1] : byFirstLevel[0];
}

/** The tier that starts at the lowest level above `level`, or null when none does. */
export function nextTierAfter(tiers: TierConfig[], level: number): NextTier | null {
  let next: TierConfig | null = null;
  for (const tier of tiers) {
    if (firstLevel(tier) > level && (next === null || firstLevel(tier) < firstLevel(next))) next = tier;
  }
  return next === null ? null : { code: next.code, name: next.name, startsAtLevel: firstLevel(next) };
}

/** Tiers are ranked by the level they start at; a code no longer configured ranks lowest. */
function tierRank(tiers: TierConfig[], code: string): number {
  for (const tier of tiers) if (tier.code === code) return firstLevel(tier);
  return 0;
}

/**
 * The tier after the participant's level became `level`: promotion is
 * immediate, and a tier is never lowered here. With demotion `never` a
 * participant keeps the highest tier reached; with `monthly_review` only
 * reviewTier lowers it.
 */
export function tierAfterLevelChange(tiers: TierConfig[], currentTierCode: string, level: number): string {
  const levelTier = tierForLevel(tiers, level).code;
  return tierRank(tiers, currentTierCode) > tierRank(tiers, levelTier) ? currentTierCode : levelTier;
}

/**
 * The tier a participant keeps after the monthly review run at `now` (a job
 * calls it at the start of each club month). With `monthly_review` it is the
 * tier of the highest level reached during the month under review (the
 * previous club month) or since, so a participant whose level fell (XP
 * debited) keeps the tier until the review after the month it fell in. With
 * `never` nothing is lowered.
 */
export function reviewTier(
  progression: ProgressionConfig,
  participant: Pick<ParticipantState, "level" | "tierCode" | "peakLevel">,
  now: Date,
  timeZone: string,
): string {
  if (progression.demotion === "never") return tierAfterLevelChange(progression.tiers, participant.tierCode, participant.level);
  const reviewedMonth = previousMonthKey(monthKey(now, timeZone));
  const peak = participant.peakLevel;
  // Month keys are "YYYY-MM", so text order is time order.
  const highest = peak !== null && peak.monthKey >= reviewedMonth ? Math.max(peak.level, participant.level) : participant.level;
  return tierForLevel(progression.tiers, highest).code;
}
