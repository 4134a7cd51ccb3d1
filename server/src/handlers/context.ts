import type { Database } from "../db/orm.js";
import type { Scope } from "../db/scope.js";
import type { RequestContext } from "../http/router.js";
import type { Services } from "../services.js";
import type { AfterCommit } from "../usecases/shared/after-commit.js";
import type { StaffMember, StaffSession } from "../db/entities/index.js";
import type { StaffAuth } from "../http/staff-session.js";

/** The club and environment the caller's key or token selects. */
export function scopeOf(ctx: RequestContext): Scope {
  const { auth } = ctx;
  if (auth.kind === "public") throw new Error("scopeOf called on a public route");
  return { clubId: auth.clubId, env: auth.env };
}

/** The participant a `/v1/me/*` call acts for (from the token, or X-Participant in headless mode). */
export function meOf(ctx: RequestContext): { scope: Scope; externalId: string } {
  const { auth } = ctx;
  if (auth.kind !== "participant") throw new Error("meOf called outside the participant surface");
  return { scope: { clubId: auth.clubId, env: auth.env }, externalId: auth.externalId };
}

/** The staff session of a call made with the `clube_session` cookie (set by http/staff-session.ts). */
export function staffOf(ctx: RequestContext): { session: StaffSession; member: StaffMember; auth: StaffAuth } {
  const { auth } = ctx;
  if (auth.kind !== "staff") throw new Error("staffOf called without a staff session");
  return { ...(ctx.koa.state.staff as { session: StaffSession; member: StaffMember }), auth };
}

/** The key id of a secret-key call (GET /v1/key). */
export function keyIdOf(ctx: RequestContext): string {
  if (ctx.auth.kind !== "secret") throw new Error("keyIdOf called without a secret key");
  return ctx.auth.keyId;
}

/** What a use case runs in, for one request: the database, the caller's scope, the clock's time, and the after-commit hook. */
export interface UseCaseContext {
  db: Database;
  scope: Scope;
  now: Date;
  /** Told `"outbox"` by the use case (or the handler) when the commit wrote outbox rows: the relay is woken after it. */
  afterCommit: AfterCommit;
}

/** The use-case context of a request on `services`; the scope from the caller's key or token. */
export function useCaseContext(ctx: RequestContext, services: Services): UseCaseContext {
  const { db, clock } = services;
  return { db, scope: scopeOf(ctx), now: clock.now(), afterCommit: afterCommitOf(ctx, services) };
}

/** The after-commit hook of a request: an outbox write wakes the in-process relay once the handler returned. */
export function afterCommitOf(ctx: RequestContext, services: Services): AfterCommit {
  return (effect) => {
    if (effect === "outbox") ctx.afterCommit(services.jobsChanged);
  };
}
