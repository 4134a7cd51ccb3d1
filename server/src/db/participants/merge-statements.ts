import type { EntitySchema } from "@mikro-orm/core";
import type { Knex, SqlEntityManager } from "@mikro-orm/knex";

/*
 * The set-based statements of a participant merge (usecases/participants/
 * merge.ts decides which table gets which), in the caller's transaction: a
 * participant with a long history merges without loading its rows.
 */

/** A participant-owned table's columns a merge statement names. */
export interface Columns {
  table: string;
  owner: string;
  keys: string[];
  amount?: string;
}

/** The columns of `entity`'s table for the properties `owner`, `keys` and `amount`. */
export function columnsOf(em: SqlEntityManager, rule: { entity: EntitySchema<any, any>; owner: string; keys: string[]; amount?: string }): Columns {
  const meta = em.getMetadata().get(rule.entity.meta.className);
  const column = (property: string) => meta.properties[property].fieldNames[0];
  return { table: meta.tableName, owner: column(rule.owner), keys: rule.keys.map(column), amount: rule.amount && column(rule.amount) };
}

/** Rows of participant `ownerId` (aliased `alias`) with the same identity (`keys`) as the outer statement's row. */
function sameIdentity(knex: Knex, c: Columns, alias: string, ownerId: string): Knex.QueryBuilder {
  const query = knex(`${c.table} as ${alias}`).where(`${alias}.${c.owner}`, ownerId);
  for (const key of c.keys) query.whereRaw("?? = ??", [`${alias}.${key}`, `${c.table}.${key}`]);
  return query;
}

/** Runs a write; the rows it changed. */
async function run(em: SqlEntityManager, query: Knex.QueryBuilder): Promise<number> {
  const result = await em.execute<{ affectedRows: number }>(query, [], "run");
  return result.affectedRows;
}

/** Adds the `amount` of each of `fromId`'s rows into `intoId`'s row of the same identity. */
export async function addIntoSurvivorRows(em: SqlEntityManager, c: Columns, fromId: string, intoId: string): Promise<void> {
  const knex = em.getKnex();
  const amount = c.amount!;
  const mergedAmount = sameIdentity(knex, c, "merged", fromId).select(`merged.${amount}`);
  await run(
    em,
    knex(c.table)
      .where(c.owner, intoId)
      .whereExists(sameIdentity(knex, c, "merged", fromId).select(knex.raw("1")))
      .update({ [amount]: knex.raw("?? + (?)", [amount, mergedAmount]) }),
  );
}

/** Deletes `fromId`'s rows whose identity `intoId` also has; how many. */
export function deleteRowsTheSurvivorHas(em: SqlEntityManager, c: Columns, fromId: string, intoId: string): Promise<number> {
  const knex = em.getKnex();
  return run(
    em,
    knex(c.table)
      .where(c.owner, fromId)
      .whereExists(sameIdentity(knex, c, "survivor", intoId).select(knex.raw("1")))
      .delete(),
  );
}

/** Repoints `fromId`'s remaining rows to `intoId`; how many. */
export function repointRows(em: SqlEntityManager, c: Columns, fromId: string, intoId: string): Promise<number> {
  return run(
    em,
    em
      .getKnex()(c.table)
      .where(c.owner, fromId)
      .update({ [c.owner]: intoId }),
  );
}
