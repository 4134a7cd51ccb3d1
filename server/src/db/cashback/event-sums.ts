import { raw } from "@mikro-orm/core";
import type { SqlEntityManager } from "@mikro-orm/knex";
import { Event } from "../entities/index.js";

/** The sum of `amount_minor` of the events matching `where`, per participant and type, summed by the database. */
export async function eventSumsByParticipantAndType(
  em: SqlEntityManager,
  where: Record<string, unknown>,
): Promise<{ participantId: string; type: string; total: number | string | null }[]> {
  return em
    .createQueryBuilder(Event)
    .select(["participantId", "type", raw("sum(amount_minor) as total")])
    .where(where)
    .groupBy(["participantId", "type"])
    .execute<{ participantId: string; type: string; total: number | string | null }[]>("all");
}
