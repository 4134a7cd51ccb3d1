import { UniqueConstraintViolationException } from "@mikro-orm/core";
import type { components } from "../../../../generated/types.js";
import { PromotionCode } from "../../db/entities/index.js";
import { newId } from "../../db/ids.js";
import type { Database } from "../../db/orm.js";
import type { Scope } from "../../db/scope.js";
import { parseRewardSpec } from "../../engine/rewards.js";
import { requirePublishedConfig } from "../club/index.js";
import { ApiError, notFound, validationFailed } from "../shared/errors.js";
import { olderThan } from "../shared/paging.js";
import { withHotAutocommit } from "../../db/hot/index.js";
import { activePromotionCodes } from "../../db/hot/participant-reads.js";
import { changing } from "../../cache/changes.js";
import { activeCodesAt, cachesOf, scopeKey } from "../../cache/registry.js";

/*
 * Promotional codes as the club's server manages them: created, listed,
 * read and disabled. Codes are case-insensitive and stored upper case.
 */

type Schemas = components["schemas"];
export type PromotionCodeView = Schemas["PromotionCode"];
export type PromotionCodeCreate = Schemas["PromotionCodeCreate"];

/** The stored form of a code as typed (codes match case-insensitively). */
export function normalizeCode(code: string): string {
  return code.trim().toUpperCase();
}

export function promotionCodeView(row: PromotionCode): PromotionCodeView {
  return {
    id: row.id,
    code: row.code,
    reward: row.reward,
    max_redemptions: row.maxRedemptions ?? null,
    per_participant_limit: row.perParticipantLimit,
    starts_at: row.startsAt?.toISOString() ?? null,
    ends_at: row.endsAt?.toISOString() ?? null,
    audience_tag: row.audienceTag ?? null,
    status: row.status,
    redemptions: row.redemptions,
    created_at: row.createdAt.toISOString(),
    disabled_at: row.disabledAt?.toISOString() ?? null,
  };
}

export function codeNotFound(code: string): ApiError {
  return notFound(`Promotional code ${JSON.stringify(normalizeCode(code))}`);
}

/** POST /v1/codes: the reward must be a valid spec and, when it names a reward, one of the published configuration. */
export async function createPromotionCode(db: Database, scope: Scope, input: PromotionCodeCreate, now: Date): Promise<PromotionCodeView> {
  const { config } = await requirePublishedConfig(db, scope);
  const spec = parseRewardSpec(input.reward);
  if (spec === null) throw validationFailed("body.reward must be a reward code or a spec like coins:50 or xp:100");
  if (spec.kind === "reward" && !config.rewards.some((reward) => reward.code === spec.code)) {
    throw validationFailed(`body.reward names the reward ${JSON.stringify(spec.code)}, which the published configuration does not have`);
  }
  if (spec.kind === "currency" && !config.currencies.some((currency) => currency.code === spec.currency)) {
    throw validationFailed(`body.reward names the currency ${JSON.stringify(spec.currency)}, which the published configuration does not have`);
  }
  const startsAt = input.starts_at ? new Date(input.starts_at) : null;
  const endsAt = input.ends_at ? new Date(input.ends_at) : null;
  if (startsAt && endsAt && endsAt <= startsAt) throw validationFailed("body.ends_at must be after body.starts_at");

  const row = {
    id: newId("pcd"),
    ...scope,
    code: normalizeCode(input.code),
    reward: input.reward,
    maxRedemptions: input.max_redemptions ?? null,
    perParticipantLimit: input.per_participant_limit ?? 1,
    startsAt,
    endsAt,
    audienceTag: input.audience_tag ?? null,
    status: "active" as const,
    redemptions: 0,
    createdAt: now,
    disabledAt: null,
  };
  try {
    // Every process forgets the scope's active codes (hasActiveCodes).
    await changing(db, { what: "codes", ...scope }, (em) => em.insert(PromotionCode, row));
  } catch (err) {
    if (err instanceof UniqueConstraintViolationException) throw new ApiError(409, "code_taken", `Promotional code ${JSON.stringify(row.code)} already exists`);
    throw err;
  }
  return promotionCodeView(row as PromotionCode);
}

/** GET /v1/codes: newest first, paged after the code whose id is `starting_after`. */
export async function listPromotionCodes(
  db: Database,
  scope: Scope,
  query: { limit?: number; starting_after?: string },
): Promise<Schemas["PromotionCodeList"]> {
  const em = db.em();
  const limit = query.limit ?? 20;
  const where: Record<string, unknown> = { ...scope };
  if (query.starting_after) {
    const after = await em.findOne(PromotionCode, { ...scope, id: query.starting_after }, { fields: ["id", "createdAt"] });
    if (!after) throw validationFailed("query.starting_after is not a promotional code of this club and environment");
    Object.assign(where, olderThan("createdAt", after));
  }
  const rows = await em.find(PromotionCode, where, { orderBy: [{ createdAt: "desc" }, { id: "desc" }], limit: limit + 1 });
  return { data: rows.slice(0, limit).map(promotionCodeView), has_more: rows.length > limit };
}

/** GET /v1/codes/{code}. */
export async function getPromotionCode(db: Database, scope: Scope, code: string): Promise<PromotionCodeView> {
  const row = await db.em().findOne(PromotionCode, { ...scope, code: normalizeCode(code) });
  if (!row) throw codeNotFound(code);
  return promotionCodeView(row);
}

/** POST /v1/codes/{code}/disable: for good; disabling twice answers the code unchanged. */
export async function disablePromotionCode(db: Database, scope: Scope, code: string, now: Date): Promise<PromotionCodeView> {
  await changing(db, { what: "codes", ...scope }, (em) =>
    em.nativeUpdate(PromotionCode, { ...scope, code: normalizeCode(code), status: "active" }, { status: "disabled", disabledAt: now }),
  );
  return getPromotionCode(db, scope, code);
}

/** Whether the club has a code participants may still redeem (the `codes` module card is shown only then). */
export async function hasActiveCodes(db: Database, scope: Scope, now: Date): Promise<boolean> {
  // Asked on every GET /v1/me/config: kept in memory (cache/registry.ts) and forgotten by create and disable; the ends are compared with `now` here.
  const codes = await cachesOf(db).activeCodes.get(scopeKey(scope), () => withHotAutocommit(db.orm.em, (store) => activePromotionCodes(store, scope)));
  return activeCodesAt(codes, now);
}
