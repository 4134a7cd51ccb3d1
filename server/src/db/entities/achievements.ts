import { defineEntity, p, type InferEntity } from "@mikro-orm/core";
import { amountColumn, idColumn, refColumn, tenancyColumns } from "./columns.js";

/**
 * A participant's progress on one mission in one period (`once`,
 * `2026-11-21`, `2026-W47`, `2026-11`). `progress` is a count or a sum of an
 * event field in main units, hence a double rather than an integer.
 */
export const MissionProgress = defineEntity({
  name: "MissionProgress",
  tableName: "mission_progress",
  uniques: [{ properties: ["participantId", "missionId", "periodKey"] }],
  properties: {
    id: idColumn(),
    ...tenancyColumns(),
    participantId: refColumn(),
    missionId: p.string().length(48),
    periodKey: p.string().length(16),
    progress: p.double().$type<number>(),
    completedAt: p.datetime().nullable(),
    claimedAt: p.datetime().nullable(),
    updatedAt: p.datetime(),
  },
});
export type MissionProgress = InferEntity<typeof MissionProgress>;

/** A badge a participant holds; a badge is granted once per participant. */
export const Badge = defineEntity({
  name: "Badge",
  tableName: "badges",
  uniques: [{ properties: ["participantId", "badgeCode"] }],
  properties: {
    id: idColumn(),
    ...tenancyColumns(),
    participantId: refColumn(),
    badgeCode: p.string().length(64),
    ruleId: p.string().length(64).nullable(),
    grantedAt: p.datetime(),
  },
});
export type Badge = InferEntity<typeof Badge>;

/** A participant's points in one leaderboard campaign (added to atomically). */
export const LeaderboardEntry = defineEntity({
  name: "LeaderboardEntry",
  tableName: "leaderboard_entries",
  uniques: [{ properties: ["participantId", "campaignId"] }],
  indexes: [{ properties: ["clubId", "env", "campaignId", "points"] }],
  properties: {
    id: idColumn(),
    ...tenancyColumns(),
    participantId: refColumn(),
    campaignId: p.string().length(64),
    points: amountColumn(),
    updatedAt: p.datetime(),
  },
});
export type LeaderboardEntry = InferEntity<typeof LeaderboardEntry>;
