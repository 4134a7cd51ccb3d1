/*
 * Ranking: higher score first; at equal scores the participant who reached
 * the score earlier ranks first; the participant id settles the (practically
 * impossible) rest, so a ranking is always a strict order and every rank is
 * held by exactly one participant.
 */

export interface StandingRow {
  participantId: string;
  /** Hundredths. */
  score: number;
  reachedAt: Date;
}

export interface RankedRow extends StandingRow {
  rank: number;
}

function compareStandings(a: StandingRow, b: StandingRow): number {
  return (
    b.score - a.score || a.reachedAt.getTime() - b.reachedAt.getTime() || (a.participantId < b.participantId ? -1 : a.participantId > b.participantId ? 1 : 0)
  );
}

/**
 * Ranks the rows scoring at least `minScore` (hundredths) and above zero;
 * the others have no rank.
 */
export function rankStandings(rows: StandingRow[], minScore = 0): RankedRow[] {
  return rows
    .filter((row) => row.score > 0 && row.score >= minScore)
    .sort(compareStandings)
    .map((row, index) => ({ ...row, rank: index + 1 }));
}
