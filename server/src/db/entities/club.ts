import { defineEntity, p, type InferEntity } from "@mikro-orm/core";
import { idColumn, tenancyColumns } from "./columns.js";

/** A club: the client business. Its rows in every other table are split by environment. */
export const Club = defineEntity({
  name: "Club",
  tableName: "clubs",
  properties: {
    id: idColumn(),
    name: p.string().length(120),
    createdAt: p.datetime(),
  },
});
export type Club = InferEntity<typeof Club>;

/**
 * A secret key. Only its SHA-256 is stored; `prefix` (the first 12 characters,
 * e.g. `cf_test_a1b2`) finds the candidate rows and is what the console shows.
 * The prefix is not unique (4 random characters), so lookups compare the hash
 * of every candidate. The key's club and environment are its scope.
 */
export const ApiKey = defineEntity({
  name: "ApiKey",
  tableName: "api_keys",
  properties: {
    id: idColumn(),
    ...tenancyColumns(),
    prefix: p.string().length(12).index(),
    hash: p.string().length(64),
    /** The key's last 4 characters, shown beside the prefix; null for keys made before they were kept. */
    last4: p.string().length(4).nullable(),
    createdAt: p.datetime(),
    /** Set when the key was rolled with an overlap: it keeps working until then. */
    expiresAt: p.datetime().nullable(),
    revokedAt: p.datetime().nullable(),
  },
});
export type ApiKey = InferEntity<typeof ApiKey>;

/**
 * The HS256 secret participant tokens of one club and environment are signed
 * with: 32 random bytes, base64url. Created with the club; a club without one
 * cannot issue tokens (the token route answers 500 `signing_secret_missing`).
 */
export const ClubSecret = defineEntity({
  name: "ClubSecret",
  tableName: "club_secrets",
  uniques: [{ properties: ["clubId", "env"] }],
  properties: {
    id: idColumn(),
    ...tenancyColumns(),
    tokenSigningSecret: p.string().length(64),
    /** The secret before the last roll: tokens it signed keep verifying until `previousExpiresAt`. */
    previousTokenSigningSecret: p.string().length(64).nullable(),
    previousExpiresAt: p.datetime().nullable(),
    createdAt: p.datetime(),
  },
});
export type ClubSecret = InferEntity<typeof ClubSecret>;
