import type { components } from "../../../../generated/types.js";
import { LedgerEntry, Participant } from "../../db/entities/index.js";
import type { Database } from "../../db/orm.js";
import type { Scope } from "../../db/scope.js";
import { notFound, validationFailed } from "../shared/errors.js";
import { olderThan, pageOf } from "../shared/paging.js";

type LedgerLine = components["schemas"]["LedgerLine"];

/** A participant's XP and currency changes, newest first, each with the rule or reason behind it. */
export async function listLedger(
  db: Database,
  scope: Scope,
  externalId: string,
  query: { unit?: string; limit?: number; starting_after?: string },
): Promise<{ data: LedgerLine[]; has_more: boolean }> {
  const em = db.em();
  const participant = await em.findOne(Participant, { ...scope, externalId }, { fields: ["id"] });
  if (!participant) throw notFound(`Participant ${JSON.stringify(externalId)}`);
  const limit = query.limit ?? 20;
  const where: Record<string, unknown> = { ...scope, participantId: participant.id };
  if (query.unit) where.unit = query.unit;
  if (query.starting_after) {
    const after = await em.findOne(LedgerEntry, { ...scope, participantId: participant.id, id: query.starting_after }, { fields: ["id", "createdAt"] });
    if (!after) throw validationFailed("query.starting_after is not a line of this participant's ledger");
    Object.assign(where, olderThan("createdAt", after));
  }
  const rows = await em.find(LedgerEntry, where, { orderBy: [{ createdAt: "desc" }, { id: "desc" }], limit: limit + 1 });
  return pageOf(rows, limit, (row) => ({
    id: row.id,
    unit: row.unit,
    amount_minor: Number(row.delta),
    balance_after_minor: Number(row.balanceAfter),
    reason: row.reason,
    rule_id: row.ruleId ?? null,
    event_id: row.eventId ?? null,
    created_at: row.createdAt.toISOString(),
  }));
}
