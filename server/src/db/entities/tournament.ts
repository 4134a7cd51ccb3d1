import { defineEntity, p, type InferEntity } from "@mikro-orm/core";
import { amountColumn, idColumn, refColumn, tenancyColumns } from "./columns.js";

/**
 * A participant's score in one edition of a tournament. `tournamentId` is a
 * configured tournament's id, or `official:<track>:<daily|monthly>:<currency>`
 * for an official wager tournament; `editionKey` names the edition (the club
 * date its window starts, or the official day/month key). `score` is in
 * hundredths (a wager score is the amount in cents); `reachedAt` is when the
 * score was last raised, which breaks ties (earlier first).
 *
 * The (club, env, tournament, edition, score, reached_at) index serves "top N"
 * (read backwards) and "rank of X" (count of the rows ahead) without scanning
 * the edition.
 *
 * The primary key is the standing's identity (participant, tournament,
 * edition), which the event path's upsert names: no surrogate id. Every event
 * batch rewrites its standings, and with the score in the ranking index no
 * update is HOT, so each index of the table gets an entry per update: an id
 * index nobody reads cost a third of them
 * (docs/performance-log.md#standings-identity-key).
 *
 * A rowid table on SQLite: WITHOUT ROWID makes the rank index hold the whole
 * text key (docs/performance-log.md#standings-without-rowid).
 */
export const TournamentStanding = defineEntity({
  name: "TournamentStanding",
  tableName: "tournament_standings",
  indexes: [{ properties: ["clubId", "env", "tournamentId", "editionKey", "score", "reachedAt"] }],
  properties: {
    ...tenancyColumns(),
    participantId: refColumn().primary(),
    tournamentId: p.string().length(80).primary(),
    editionKey: p.string().length(32).primary(),
    score: amountColumn(),
    reachedAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});
export type TournamentStanding = InferEntity<typeof TournamentStanding>;

/**
 * A settled edition: its unique key is the claim that makes settlement happen
 * once, even with several workers (the second insert conflicts and that
 * worker skips). `results` freezes the final standings and what was paid.
 */
export const TournamentSettlement = defineEntity({
  name: "TournamentSettlement",
  tableName: "tournament_settlements",
  uniques: [{ properties: ["clubId", "env", "tournamentId", "editionKey"] }],
  properties: {
    id: idColumn(),
    ...tenancyColumns(),
    tournamentId: p.string().length(80),
    editionKey: p.string().length(32),
    results: p.json<Record<string, unknown>>(),
    settledAt: p.datetime(),
  },
});
export type TournamentSettlement = InferEntity<typeof TournamentSettlement>;
