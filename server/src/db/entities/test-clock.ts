import { defineEntity, p, type InferEntity } from "@mikro-orm/core";
import { idColumn } from "./columns.js";

/**
 * A club's test clock: while the row exists, the club's `test` environment
 * lives at `now` (frozen between advances) instead of real time. The live
 * environment never has one.
 */
export const TestClock = defineEntity({
  name: "TestClock",
  tableName: "test_clocks",
  uniques: [{ properties: ["clubId"] }],
  properties: {
    id: idColumn(),
    clubId: p.string().length(40),
    now: p.datetime(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
  },
});
export type TestClock = InferEntity<typeof TestClock>;
