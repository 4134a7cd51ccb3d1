import type { components } from "../../../../generated/types.js";
import { Badge } from "../../db/entities/index.js";
import type { Database } from "../../db/orm.js";
import type { Scope } from "../../db/scope.js";
import { findMe } from "./find-me.js";

/** The participant's badges (`/v1/me/badges`). */

type Schemas = components["schemas"];
export type MyBadge = Schemas["MyBadge"];

/** GET /v1/me/badges: newest first. */
export async function listMyBadges(db: Database, scope: Scope, externalId: string): Promise<{ data: MyBadge[] }> {
  const em = db.em();
  const { participant } = await findMe(em, db, scope, externalId);
  const rows = await em.find(Badge, { participantId: participant.id }, { orderBy: { grantedAt: "desc", id: "desc" } });
  return { data: rows.map((row) => ({ badge_code: row.badgeCode, granted_at: row.grantedAt.toISOString(), rule_id: row.ruleId ?? null })) };
}
