import type { SqlEntityManager } from "@mikro-orm/knex";
import { PostgreSqlPlatform } from "@mikro-orm/postgresql";
import type { Dialect } from "./options.js";

/** The dialect `em` talks to: the data layer picks its statements by it, so no caller has to. */
export function dialectOf(em: SqlEntityManager): Dialect {
  return em.getPlatform() instanceof PostgreSqlPlatform ? "postgresql" : "sqlite";
}
