import type { SqlEntityManager } from "@mikro-orm/knex";
import { dialectOf } from "./dialect.js";
import { withAutocommitHotStore, type HotStore } from "./hot/index.js";

/**
 * Runs `use` on a HotStore outside any transaction, each statement committing
 * by itself, where that saves round trips (PostgreSQL: withAutocommitHotStore);
 * null on SQLite, whose work the caller then does in a transaction (which
 * takes the write lock first, see write-lock.ts).
 */
export async function withAutocommitWhereItPays<T>(em: SqlEntityManager, use: (hot: HotStore) => Promise<T | null>): Promise<T | null> {
  if (dialectOf(em) !== "postgresql") return null;
  return withAutocommitHotStore(em, use);
}
