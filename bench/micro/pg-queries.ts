/**
 * The statements `pg` sends from this process, for the micro-benchmarks
 * (bench/micro/*-costs.ts): every `Client#query` passes through `observe`,
 * which runs it (`query.apply(self, args)`) and returns its result.
 */
import { createRequire } from "node:module";

type Query = (...args: unknown[]) => unknown;

export function observePgQueries(observe: (query: Query, self: unknown, args: unknown[]) => unknown): void {
  const client = (createRequire(import.meta.url)("pg") as { Client: { prototype: { query: Query } } }).Client.prototype;
  const query = client.query;
  client.query = function (this: unknown, ...args: unknown[]) {
    return observe(query, this, args);
  };
}

/** A counter of the statements `pg` sends from now on; reset it by setting `count`. */
export function countPgStatements(): { count: number } {
  const counter = { count: 0 };
  observePgQueries((query, self, args) => {
    counter.count++;
    return query.apply(self, args);
  });
  return counter;
}
