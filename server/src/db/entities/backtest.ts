import { defineEntity, p, type InferEntity } from "@mikro-orm/core";
import { enumColumn, idColumn, tenancyColumns } from "./columns.js";

export type BacktestStatus = "queued" | "running" | "done" | "failed";

/**
 * A backtest run as a job (large periods, or `Prefer: respond-async`): the
 * request is stored with an outbox row in one transaction, a worker replays
 * it (usecases/sandbox/run-backtest.ts), reporting progress in
 * `eventsDone` of `eventsTotal`, and stores the result. Nothing else is written.
 */
export const Backtest = defineEntity({
  name: "Backtest",
  tableName: "backtests",
  indexes: [{ properties: ["clubId", "env", "createdAt"] }],
  properties: {
    id: idColumn(),
    ...tenancyColumns(),
    version: p.integer(),
    from: p.datetime(),
    to: p.datetime(),
    status: enumColumn<BacktestStatus>(),
    eventsTotal: p.integer(),
    eventsDone: p.integer(),
    result: p.json<Record<string, unknown>>().nullable(),
    error: p.text().nullable(),
    createdAt: p.datetime(),
    finishedAt: p.datetime().nullable(),
  },
});
export type Backtest = InferEntity<typeof Backtest>;
