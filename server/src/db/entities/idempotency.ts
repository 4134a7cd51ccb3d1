import { defineEntity, p, type InferEntity } from "@mikro-orm/core";
import type { Env } from "../scope.js";
import { enumColumn } from "./columns.js";

export type IdempotencyState = "in_flight" | "done";

/**
 * An `Idempotency-Key` as it was first used (see server/src/http/idempotency.ts):
 * bound to the request's fingerprint (operation + canonical body + caller), so
 * the same key with another request is refused instead of answering the first
 * request's result. Keys share one namespace per club and environment, like
 * Stripe's; they are kept (never purged), which is more than the 24 h promised.
 * `lockedUntil` ends an `in_flight` claim whose process died mid-request.
 */
export const IdempotencyKey = defineEntity({
  name: "IdempotencyKey",
  tableName: "idempotency_keys",
  properties: {
    clubId: p.string().length(40).primary(),
    env: enumColumn<Env>().primary(),
    key: p.string().length(128).primary(),
    operationId: p.string().length(64),
    fingerprint: p.string().length(64),
    state: enumColumn<IdempotencyState>(),
    lockedUntil: p.datetime(),
    createdAt: p.datetime(),
  },
});
export type IdempotencyKey = InferEntity<typeof IdempotencyKey>;
