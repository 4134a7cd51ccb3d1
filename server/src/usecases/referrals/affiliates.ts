import { UniqueConstraintViolationException } from "@mikro-orm/core";
import type { SqlEntityManager } from "@mikro-orm/knex";
import type { components } from "../../../../generated/types.js";
import type { ClubConfig } from "../../engine/config.js";
import { AFFILIATE_ACCOUNT_MAX_AGE_DAYS, AFFILIATE_EVENT_TYPES, affiliateLink, isOldAccount } from "../../engine/referral.js";
import { Affiliate, AffiliateAttribution, Event } from "../../db/entities/index.js";
import { newId } from "../../db/ids.js";
import type { Database } from "../../db/orm.js";
import type { Scope } from "../../db/scope.js";
import { requirePublishedConfig } from "../club/index.js";
import { ApiError, notFound, validationFailed } from "../shared/errors.js";
import { lockParticipant } from "../evaluation/index.js";
import { ensureParticipant } from "../participants/index.js";
import { olderThan } from "../shared/paging.js";
import { attributedPlayerCounts } from "../../db/referrals/affiliate-figures.js";

/*
 * Affiliates: partners who bring players through a link carrying their code
 * (`aff=<code>`), and the attribution of a player to one at signup. Affiliate
 * codes are matched exactly as created (the link carries them verbatim).
 */

type Schemas = components["schemas"];
export type AffiliateView = Schemas["Affiliate"];
export type AffiliateCreate = Schemas["AffiliateCreate"];
export type AffiliateUpdate = Schemas["AffiliateUpdate"];
export type AffiliateAttributionRequest = Schemas["AffiliateAttributionRequest"];
export type AffiliateAttributionView = Schemas["AffiliateAttribution"];

export interface AffiliateListQuery {
  status?: Affiliate["status"];
  limit?: number;
  starting_after?: string;
}

function affiliateView(config: ClubConfig, affiliate: Affiliate, players: number): AffiliateView {
  return {
    id: affiliate.id,
    code: affiliate.code,
    name: affiliate.name,
    status: affiliate.status,
    link: affiliateLink(config, affiliate.code),
    players,
    created_at: affiliate.createdAt.toISOString(),
  };
}

/** Players attributed to each of `affiliateIds`, in one grouped count. */
async function playerCounts(em: SqlEntityManager, affiliateIds: string[]): Promise<Map<string, number>> {
  return attributedPlayerCounts(em, affiliateIds);
}

async function findAffiliate(em: SqlEntityManager, scope: Scope, id: string): Promise<Affiliate> {
  const affiliate = await em.findOne(Affiliate, { ...scope, id });
  if (!affiliate) throw notFound(`Affiliate ${JSON.stringify(id)}`);
  return affiliate;
}

/** POST /v1/affiliates: 409 `affiliate_code_taken` when another affiliate of the club and environment has the code. */
export async function createAffiliate(db: Database, scope: Scope, input: AffiliateCreate, now: Date): Promise<AffiliateView> {
  const { config } = await requirePublishedConfig(db, scope);
  const affiliate: Affiliate = {
    id: newId("aff"),
    ...scope,
    code: input.code,
    name: input.name,
    status: input.status ?? "active",
    createdAt: now,
    updatedAt: now,
  };
  try {
    await db.em().insert(Affiliate, affiliate);
  } catch (err) {
    if (err instanceof UniqueConstraintViolationException)
      throw new ApiError(409, "affiliate_code_taken", `Affiliate code ${JSON.stringify(input.code)} is already in use`);
    throw err;
  }
  return affiliateView(config, affiliate, 0);
}

/** GET /v1/affiliates: newest first, paged after the affiliate `starting_after`. */
export async function listAffiliates(db: Database, scope: Scope, query: AffiliateListQuery): Promise<{ data: AffiliateView[]; has_more: boolean }> {
  const { config } = await requirePublishedConfig(db, scope);
  const em = db.em();
  const limit = query.limit ?? 20;
  const where: Record<string, unknown> = { ...scope };
  if (query.status) where.status = query.status;
  if (query.starting_after) {
    const after = await em.findOne(Affiliate, { ...scope, id: query.starting_after }, { fields: ["id", "createdAt"] });
    if (!after) throw validationFailed("query.starting_after is not an affiliate of this club and environment");
    Object.assign(where, olderThan("createdAt", after));
  }
  const rows = await em.find(Affiliate, where, { orderBy: [{ createdAt: "desc" }, { id: "desc" }], limit: limit + 1 });
  const page = rows.slice(0, limit);
  const players = await playerCounts(
    em,
    page.map((row) => row.id),
  );
  return { data: page.map((row) => affiliateView(config, row, players.get(row.id) ?? 0)), has_more: rows.length > limit };
}

/** GET /v1/affiliates/{id}. */
export async function getAffiliate(db: Database, scope: Scope, id: string): Promise<AffiliateView> {
  const { config } = await requirePublishedConfig(db, scope);
  const em = db.em();
  const affiliate = await findAffiliate(em, scope, id);
  return affiliateView(config, affiliate, (await playerCounts(em, [id])).get(id) ?? 0);
}

/** POST /v1/affiliates/{id}: renames, pauses or resumes; players already attributed stay attributed. */
export async function updateAffiliate(db: Database, scope: Scope, id: string, input: AffiliateUpdate, now: Date): Promise<AffiliateView> {
  const { config } = await requirePublishedConfig(db, scope);
  return db.em().transactional(async (em) => {
    const affiliate = await findAffiliate(em, scope, id);
    if (input.name !== undefined) affiliate.name = input.name;
    if (input.status !== undefined) affiliate.status = input.status;
    affiliate.updatedAt = now;
    await em.flush();
    return affiliateView(config, affiliate, (await playerCounts(em, [id])).get(id) ?? 0);
  });
}

function conflict(message: string): ApiError {
  return new ApiError(409, "affiliate_conflict", message);
}

const alreadyAttributed = (externalId: string) => conflict(`Participant ${JSON.stringify(externalId)} already belongs to an affiliate`);

/**
 * POST /v1/affiliates/attributions: attributes the player (created when
 * absent) to the affiliate with `code`. 404 for an unknown code; 409
 * `affiliate_conflict` when the affiliate is paused, the player already
 * belongs to an affiliate, or the account is old: its `signup_at`, or the
 * participant's creation, more than 30 days ago (a player who joined long
 * ago did not come through this link). `backfilled` counts the player's
 * deposits, withdrawals and bets received since `signup_at` (none without
 * one), which from now on count for the affiliate like later ones.
 */
export async function attributeAffiliate(db: Database, scope: Scope, input: AffiliateAttributionRequest, now: Date): Promise<AffiliateAttributionView> {
  const { config } = await requirePublishedConfig(db, scope);
  const externalId = input.participant_external_id;
  const signupAt = input.signup_at === undefined ? now : new Date(input.signup_at);
  try {
    return await db.em().transactional(async (em) => {
      const affiliate = await em.findOne(Affiliate, { ...scope, code: input.code });
      if (!affiliate) throw notFound(`Affiliate code ${JSON.stringify(input.code)}`);
      if (affiliate.status === "paused") throw conflict(`Affiliate ${JSON.stringify(input.code)} is paused`);
      await ensureParticipant(db, scope, externalId, { em, now });
      const participant = (await lockParticipant(em, { ...scope, externalId }))!;
      if ((await em.count(AffiliateAttribution, { ...scope, participantId: participant.id })) > 0) {
        throw alreadyAttributed(externalId);
      }
      if (isOldAccount(signupAt, now) || isOldAccount(participant.createdAt, now)) {
        throw conflict(`Participant ${JSON.stringify(externalId)} is an old account (signed up more than ${AFFILIATE_ACCOUNT_MAX_AGE_DAYS} days ago)`);
      }
      const id = newId("att");
      await em.insert(AffiliateAttribution, { id, ...scope, affiliateId: affiliate.id, participantId: participant.id, signupAt, createdAt: now });
      const backfilled =
        input.signup_at === undefined
          ? 0
          : await em.count(Event, {
              participantId: participant.id,
              type: { $in: [...AFFILIATE_EVENT_TYPES] },
              duplicateOf: null,
              status: { $ne: "failed" },
              receivedAt: { $gte: signupAt },
            });
      return { id, affiliate_link: affiliateLink(config, affiliate.code), backfilled };
    });
  } catch (err) {
    // A concurrent attribution of the same player won the unique (club, env, participant).
    if (err instanceof UniqueConstraintViolationException) throw alreadyAttributed(externalId);
    throw err;
  }
}
