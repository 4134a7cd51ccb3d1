import { p } from "@mikro-orm/core";
import type { Env } from "../scope.js";

/*
 * Column builders shared by the entities. Each call returns fresh builders
 * (builders carry their options, so one instance must not serve two columns).
 *
 * Amounts, XP and points are `bigint` columns read as JS numbers: exact up to
 * 2^53 - 1 (9,007,199,254,740,991 minor units), far above any balance a club
 * can reach; the database itself would hold up to 2^63 - 1.
 */

/** The primary key: an id made by `newId(prefix)`. */
export const idColumn = () => p.string().length(40).primary();

/** A reference to another row's id. */
export const refColumn = () => p.string().length(40);

/**
 * A column holding one of a fixed set of strings. Stored as plain varchar, not
 * as a database enum/check: MikroORM 6.6.16 misreads SQLite check constraints
 * with three or more values, so every generated migration would rebuild those
 * tables. The TypeScript type keeps writers to the listed values.
 */
export const enumColumn = <T extends string>() => p.string().$type<T>().length(32);

/** Every tenant-owned row carries its club and environment. */
export const tenancyColumns = () => ({
  clubId: p.string().length(40),
  env: enumColumn<Env>(),
});

/** An integer amount in minor units (or XP, or points). */
export const amountColumn = () => p.bigint("number");
