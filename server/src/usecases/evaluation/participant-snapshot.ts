import type { ClubConfig } from "../../engine/config.js";
import { tierForLevel } from "../../engine/tiers.js";
import type { ParticipantSnapshot } from "../../db/participants/locks.js";

export type { ParticipantSnapshot } from "../../db/participants/locks.js";

/* The participant's columns an evaluation starts from, and the club time zone it computes in. */

/** The time zone of club days, weeks and months when the club has no `checkin` section to name one. */
const DEFAULT_TIME_ZONE = "America/Sao_Paulo";

/** The club time zone the engine computes days, weeks and months in (`checkin.timezone`). */
export function clubTimeZone(config: ClubConfig): string {
  return config.checkin?.timezone ?? DEFAULT_TIME_ZONE;
}

/**
 * A plain copy of the row's snapshot columns: changing it never touches the ORM's tracked entity.
 * @public loaded by path by bench/micro/event-path-costs.ts, which knip does not follow
 */
export function participantSnapshot(row: ParticipantSnapshot): ParticipantSnapshot {
  const { id, externalId, xp, level, tierCode, tags, eventCounts, peakMonth, peakLevel, priorMonthPeakLevel, displayName, email, phone } = row;
  return { id, externalId, xp, level, tierCode, tags, eventCounts, peakMonth, peakLevel, priorMonthPeakLevel, displayName, email, phone };
}

/** The participant's tier as the engine's state holds it: the stored one, or (never stored yet) the one of its level. */
export function storedTierCode(participant: ParticipantSnapshot, config: ClubConfig): string {
  return participant.tierCode ?? tierForLevel(config.progression.tiers, participant.level).code;
}
