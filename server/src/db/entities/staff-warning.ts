import { defineEntity, p, type InferEntity } from "@mikro-orm/core";
import { enumColumn, idColumn, refColumn, tenancyColumns } from "./columns.js";

export type StaffWarningKind = "delivery_unconfirmed" | "delivery_failed" | "webhook_failed";

/**
 * Something club staff should look at, shown in the console (GET /v1/warnings).
 * Unique per (kind, subject) so a scan that runs again never warns twice.
 */
export const StaffWarning = defineEntity({
  name: "StaffWarning",
  tableName: "staff_warnings",
  uniques: [{ properties: ["kind", "subjectId"] }],
  indexes: [{ properties: ["clubId", "env", "createdAt"] }],
  properties: {
    id: idColumn(),
    ...tenancyColumns(),
    kind: enumColumn<StaffWarningKind>(),
    subjectId: refColumn(),
    message: p.text(),
    createdAt: p.datetime(),
  },
});
export type StaffWarning = InferEntity<typeof StaffWarning>;
