import type { components } from "../../../../generated/types.js";
import { StaffWarning } from "../../db/entities/index.js";
import type { Database } from "../../db/orm.js";
import type { Scope } from "../../db/scope.js";
import { validationFailed } from "../shared/errors.js";
import { olderThan, pageOf } from "../shared/paging.js";

export type StaffWarningView = components["schemas"]["StaffWarning"];

/** GET /v1/warnings: what club staff should look at, newest first. */
export async function listWarnings(
  db: Database,
  scope: Scope,
  query: { kind?: StaffWarningView["kind"]; limit?: number; starting_after?: string },
): Promise<{ data: StaffWarningView[]; has_more: boolean }> {
  const em = db.em();
  const limit = query.limit ?? 20;
  const where: Record<string, unknown> = { ...scope };
  if (query.kind) where.kind = query.kind;
  if (query.starting_after) {
    const after = await em.findOne(StaffWarning, { ...scope, id: query.starting_after });
    if (!after) throw validationFailed("query.starting_after is not a warning of this club");
    Object.assign(where, olderThan("createdAt", after));
  }
  const rows = await em.find(StaffWarning, where, { orderBy: [{ createdAt: "desc" }, { id: "desc" }], limit: limit + 1 });
  return pageOf(rows, limit, (row) => ({
    id: row.id,
    kind: row.kind,
    message: row.message,
    subject_id: row.subjectId,
    created_at: row.createdAt.toISOString(),
  }));
}
