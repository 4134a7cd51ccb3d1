import type { Scope } from "../../db/scope.js";
import type { ClubConfig } from "../../engine/config.js";
import { scoreEvent } from "../../engine/tournaments/index.js";
import type { EngineEvent } from "../../engine/types.js";
import type { StandingWrites } from "../evaluation/index.js";

/**
 * The ingestion hook: scores the event in every tournament (pure engine) and
 * gathers one upsert per affected standing into the event's writes.
 */
export function gatherTournamentScores(
  standings: StandingWrites,
  target: { scope: Scope; participantId: string; config: ClubConfig; event: EngineEvent; now: Date; timeZone: string },
): void {
  const { config } = target;
  if (config.tournaments.length === 0 && !config.officialTournaments?.enabled) return;
  const deltas = scoreEvent({
    tournaments: config.tournaments,
    officialTournaments: config.officialTournaments,
    globalExclude: config.games?.exclude,
    event: target.event,
    now: target.now,
    timeZone: target.timeZone,
  });
  standings.add(target.scope, target.participantId, deltas, target.now);
}
