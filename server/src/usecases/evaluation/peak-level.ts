import { previousMonthKey } from "../../engine/time.js";
import type { ParticipantState, StateDelta } from "../../engine/types.js";
import type { Participant } from "../../db/entities/index.js";

/*
 * The participant's peak level, for the monthly tier review
 * (`demotion: monthly_review`), between the engine's value and the stored
 * columns. Pure: no I/O.
 *
 * The engine keeps one value, the highest level in the club month of the
 * latest level change. The review at the start of month M needs the highest
 * level since the start of M-1, and it runs some time after M began (an
 * hourly job), possibly after the participant's first level change in M. So
 * the row also keeps the highest level of the month before `peakMonth`: a
 * change in a new month moves the old month's peak there instead of dropping it.
 *
 * The columns are written when the level changes (gather-evaluation.ts), so a
 * level holds from one write to the next: the level stored before a change
 * was held through the rest of its month and at the start of every month
 * until the change, and counts in both the old month's peak and the new one's.
 */

/** The participant's peak columns as written. */
export interface PeakColumns {
  peakMonth: string | null;
  peakLevel: number | null;
  priorMonthPeakLevel: number | null;
}
/** The same columns as the entity types them (nullable properties are optional there). */
type PeakRow = Pick<Participant, "peakMonth" | "peakLevel" | "priorMonthPeakLevel">;
type PeakLevel = NonNullable<ParticipantState["peakLevel"]>;

/** The engine's `peakLevel` for the participant's state: the highest level of the month of the latest change. */
export function storedPeakLevel(row: PeakRow): ParticipantState["peakLevel"] {
  return row.peakMonth == null || row.peakLevel == null ? null : { monthKey: row.peakMonth, level: row.peakLevel };
}

/**
 * The peak columns after a change whose evaluation says `peak`, from the
 * participant's row as locked before the change (its `level` is the level
 * held until now).
 */
export function peakColumnsAfter(row: PeakRow & Pick<Participant, "level">, peak: StateDelta["peakLevel"]): PeakColumns {
  const stored = storedPeakLevel(row);
  if (stored !== null && stored.monthKey === peak.monthKey) {
    return { peakMonth: peak.monthKey, peakLevel: Math.max(stored.level, peak.level), priorMonthPeakLevel: row.priorMonthPeakLevel ?? null };
  }
  // A change dated before the stored month (a clock set back) cannot move the stored months.
  if (stored !== null && peak.monthKey < stored.monthKey)
    return { peakMonth: stored.monthKey, peakLevel: stored.level, priorMonthPeakLevel: row.priorMonthPeakLevel ?? null };
  const monthBefore = previousMonthKey(peak.monthKey);
  return {
    peakMonth: peak.monthKey,
    peakLevel: Math.max(row.level, peak.level),
    // Without a change in the month before, the stored level was held all through it.
    priorMonthPeakLevel: stored !== null && stored.monthKey === monthBefore ? Math.max(stored.level, row.level) : row.level,
  };
}

/**
 * The `peakLevel` to give reviewTier for the review of `reviewedMonth`: the
 * highest level recorded since that month began, dated `peakMonth`. Null when
 * nothing was recorded since (the level has not changed: the current level is
 * the peak, which reviewTier takes on its own).
 */
export function peakSince(row: PeakRow, reviewedMonth: string): PeakLevel | null {
  const stored = storedPeakLevel(row);
  if (stored === null || stored.monthKey < reviewedMonth) return null;
  const prior = row.priorMonthPeakLevel;
  const countsPrior = prior != null && previousMonthKey(stored.monthKey) >= reviewedMonth;
  return { monthKey: stored.monthKey, level: countsPrior ? Math.max(stored.level, prior) : stored.level };
}
