import type { RequiredEntityData } from "@mikro-orm/core";
import type { SqlEntityManager } from "@mikro-orm/knex";
import type { components } from "../../../../generated/types.js";
import type { ClubConfig } from "../../engine/config.js";
import { progressFor } from "../../engine/progression.js";
import { Balance, OutboxMessage, Participant } from "../../db/entities/index.js";
import {
  missionsReader,
  profileReader,
  type Found,
  type MissionsAsked,
  type ParticipantMissionsRows,
  type ParticipantProfileRows,
} from "../../db/hot/participant-reads.js";
import { newId } from "../../db/ids.js";
import type { Database } from "../../db/orm.js";
import type { Scope } from "../../db/scope.js";
import { publishedConfigNow, requirePublishedConfig } from "../club/index.js";
import { notFound } from "../shared/errors.js";
import { webhookMessage } from "../webhooks/index.js";
import {
  profileView,
  progressBatchItem,
  progressView,
  type Balances,
  type ParticipantProfile,
  type ParticipantProgress,
  type ParticipantProgressBatchItem,
  type ProfileAudience,
} from "./views.js";

export type ParticipantUpsert = components["schemas"]["ParticipantUpsert"];

export function participantNotFound(externalId: string) {
  return notFound(`Participant ${JSON.stringify(externalId)}`);
}

/** The participant's balances by currency code, in minor units. */
export async function loadBalances(em: SqlEntityManager, participantId: string): Promise<Balances> {
  const rows = await em.find(Balance, { participantId }, { fields: ["currency", "amount"] });
  return Object.fromEntries(rows.map((row) => [row.currency, row.amount]));
}

async function findParticipant(em: SqlEntityManager, scope: Scope, externalId: string): Promise<Participant> {
  const participant = await em.findOne(Participant, { ...scope, externalId });
  if (!participant) throw participantNotFound(externalId);
  return participant;
}

/** The profile fields of an upsert that were sent: undefined keeps, null clears. */
function profileChanges(input: ParticipantUpsert): Partial<Pick<Participant, "displayName" | "avatarUrl" | "email" | "phone" | "tags">> {
  const changes: ReturnType<typeof profileChanges> = {};
  if (input.display_name !== undefined) changes.displayName = input.display_name;
  if (input.avatar_url !== undefined) changes.avatarUrl = input.avatar_url;
  if (input.email !== undefined) changes.email = input.email;
  if (input.phone !== undefined) changes.phone = input.phone;
  if (input.tags !== undefined) changes.tags = input.tags;
  return changes;
}

/**
 * The row of a participant seen for the first time: 0 XP on level 1 and the
 * tier of level 1, the profile fields of `input` (none but the external id
 * when events create it). The one definition of a new participant, for the
 * upsert route and for the event path's bulk creation.
 */
export function newParticipantRow(
  scope: Scope,
  config: ClubConfig,
  input: ParticipantUpsert,
  now: Date,
): RequiredEntityData<Participant> & { id: string; displayName: string | null } {
  const start = progressFor(config.progression, 0);
  return {
    id: newId("par"),
    ...scope,
    externalId: input.external_id,
    displayName: null,
    avatarUrl: null,
    email: null,
    phone: null,
    tags: [],
    ...profileChanges(input),
    flags: {},
    xp: 0,
    level: start.level,
    tierCode: start.tier.code,
    eventCounts: {},
    peakMonth: null,
    peakLevel: null,
    priorMonthPeakLevel: null,
    referralCode: null,
    createdAt: now,
    updatedAt: now,
  };
}

/** The `participant.created` outbox row announcing a row of newParticipantRow that was inserted. */
export function participantCreatedMessage(scope: Scope, row: ReturnType<typeof newParticipantRow>, now: Date): RequiredEntityData<OutboxMessage> {
  return webhookMessage(scope, "participant.created", { participant: { id: row.id, external_id: row.externalId }, display_name: row.displayName }, now);
}

/**
 * Inserts a new participant unless one with the same external id exists
 * (INSERT … ON CONFLICT DO NOTHING: a concurrent creator never makes the
 * caller's transaction fail) and records `participant.created` when this call
 * created it.
 */
async function createIfAbsent(em: SqlEntityManager, scope: Scope, config: ClubConfig, input: ParticipantUpsert, now: Date): Promise<boolean> {
  const row = newParticipantRow(scope, config, input, now);
  const result = await em.createQueryBuilder(Participant).insert(row).onConflict(["clubId", "env", "externalId"]).ignore().execute("run");
  if (result.affectedRows === 0) return false;
  await em.insert(OutboxMessage, participantCreatedMessage(scope, row, now));
  return true;
}

/**
 * The participant with `externalId`, created when absent (the token route and
 * events create participants on first sight). Runs in `em` when given — the
 * caller's transaction — otherwise in a transaction of its own.
 */
export async function ensureParticipant(
  db: Database,
  scope: Scope,
  externalId: string,
  opts: { em?: SqlEntityManager; now?: Date } = {},
): Promise<Participant> {
  const work = async (em: SqlEntityManager) => {
    const existing = await em.findOne(Participant, { ...scope, externalId });
    if (existing) return existing;
    const { config } = await requirePublishedConfig(db, scope, em);
    await createIfAbsent(em, scope, config, { external_id: externalId }, opts.now ?? new Date());
    return em.findOneOrFail(Participant, { ...scope, externalId });
  };
  return opts.em ? work(opts.em) : db.em().transactional(work);
}

/** POST /v1/participants: creates the participant or updates the profile fields sent. */
export async function upsertParticipant(db: Database, scope: Scope, input: ParticipantUpsert, now = new Date()): Promise<ParticipantProfile> {
  const { config } = await requirePublishedConfig(db, scope);
  return db.em().transactional(async (em) => {
    const created = await createIfAbsent(em, scope, config, input, now);
    const changes = profileChanges(input);
    if (!created && Object.keys(changes).length > 0) {
      await em.nativeUpdate(Participant, { ...scope, externalId: input.external_id }, { ...changes, updatedAt: now });
    }
    const participant = await findParticipant(em, scope, input.external_id);
    return profileView(participant, await loadBalances(em, participant.id), config);
  });
}

/**
 * What the missions list needs of the participant with `externalId`: its
 * tags and its progress in the missions and periods asked for, one statement
 * on the driver outside any transaction (db/hot/participant-reads.ts); 404
 * when absent. At once on SQLite (no promise: see missionsReader).
 */
export function readParticipantMissions(
  db: Database,
  scope: Scope,
  externalId: string,
  missions: MissionsAsked,
): ParticipantMissionsRows | Promise<ParticipantMissionsRows> {
  return orNotFound(missionsReader(db)(scope, externalId, missions), externalId);
}

/** The participant with `externalId` as the profile and progress show it, and its balances: one statement of the columns they use; 404 when absent. */
function readProfiledParticipant(db: Database, scope: Scope, externalId: string): ParticipantProfileRows | Promise<ParticipantProfileRows> {
  return orNotFound(profileReader(db)(scope, externalId), externalId);
}

/** A read's rows, or 404 when it found no participant: at once when the read answered at once. */
function orNotFound<T>(found: Found<T>, externalId: string): T | Promise<T> {
  const present = (rows: T | null) => {
    if (!rows) throw participantNotFound(externalId);
    return rows;
  };
  return found instanceof Promise ? found.then(present) : present(found);
}

export async function getProfile(db: Database, scope: Scope, externalId: string, audience: ProfileAudience = "server"): Promise<ParticipantProfile> {
  const published = publishedConfigNow(db, scope);
  const { config } = published instanceof Promise ? await published : published;
  const read = readProfiledParticipant(db, scope, externalId);
  const { participant, balances } = read instanceof Promise ? await read : read;
  return profileView(participant, balances, config, audience);
}

/** The level bar and table, computed from the current state (history is never replayed). */
export async function getProgress(db: Database, scope: Scope, externalId: string): Promise<ParticipantProgress> {
  const published = publishedConfigNow(db, scope);
  const { config } = published instanceof Promise ? await published : published;
  const read = readProfiledParticipant(db, scope, externalId);
  const { participant, balances } = read instanceof Promise ? await read : read;
  return progressView(participant, balances, config);
}

/** Several participants' level and XP in one query, in the requested order; unknown ids are left out. */
export async function getProgressBatch(db: Database, scope: Scope, externalIds: string[]): Promise<{ items: ParticipantProgressBatchItem[] }> {
  const { config } = await requirePublishedConfig(db, scope);
  const rows = await db.em().find(Participant, { ...scope, externalId: { $in: externalIds } }, { fields: ["externalId", "xp"] });
  const byExternalId = new Map(rows.map((row) => [row.externalId, row]));
  const items = externalIds.flatMap((externalId) => {
    const participant = byExternalId.get(externalId);
    return participant ? [progressBatchItem(participant, config)] : [];
  });
  return { items };
}
