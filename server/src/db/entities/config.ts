import { defineEntity, p, type InferEntity } from "@mikro-orm/core";
import { enumColumn, idColumn, tenancyColumns } from "./columns.js";

export type ConfigStatus = "draft" | "published" | "superseded";

/**
 * One version of a club's configuration in one environment. Every save adds a
 * `draft` version (versions are never edited); publishing one makes it the
 * single `published` row and turns the previously published row and older
 * drafts into `superseded`. `config` is stored as the client sent it (defaults
 * are filled when it is read), so a later release that adds a default applies
 * it to old versions too.
 */
export const ConfigVersion = defineEntity({
  name: "ConfigVersion",
  tableName: "config_versions",
  uniques: [{ properties: ["clubId", "env", "version"] }],
  indexes: [{ properties: ["clubId", "env", "status"] }],
  properties: {
    id: idColumn(),
    ...tenancyColumns(),
    version: p.integer(),
    status: enumColumn<ConfigStatus>(),
    config: p.json<Record<string, unknown>>(),
    createdAt: p.datetime(),
    updatedAt: p.datetime(),
    publishedAt: p.datetime().nullable(),
  },
});
export type ConfigVersion = InferEntity<typeof ConfigVersion>;

/**
 * The cashback program of a club and environment (GET /v1/cashback). Not part
 * of the versioned configuration: a change takes effect at once, without
 * publishing. No row means the documented defaults.
 */
export const CashbackProgram = defineEntity({
  name: "CashbackProgram",
  tableName: "cashback_programs",
  uniques: [{ properties: ["clubId", "env"] }],
  properties: {
    id: idColumn(),
    ...tenancyColumns(),
    program: p.json<Record<string, unknown>>(),
    updatedAt: p.datetime(),
  },
});
export type CashbackProgram = InferEntity<typeof CashbackProgram>;
