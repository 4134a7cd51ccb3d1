import type { SqlEntityManager } from "@mikro-orm/knex";
import { WebhookEndpoint } from "../db/entities/index.js";
import type { Scope } from "../db/scope.js";
import { subscriptionMatches } from "./envelope.js";

/** What a webhook event needs to reach someone: an enabled endpoint of its scope that takes it. */
export type EndpointSubscription = Pick<WebhookEndpoint, "id" | "events">;

/**
 * Whether any of `endpoints` (enabled, not deleted, of the event's club and
 * environment) receives an event of `type` with `data`; the same choice the
 * dispatcher makes per endpoint when it creates sendings (`webhook.test` goes
 * only to the endpoint its data names, whatever it subscribes to).
 */
export function hasSubscriber(endpoints: readonly EndpointSubscription[], type: string, data: Record<string, unknown>): boolean {
  // Loops, not callbacks: the relay asks per row, and a new closure per call loses its optimized code at every full GC.
  const test = type === "webhook.test";
  for (const endpoint of endpoints) {
    if (test ? endpoint.id === data.endpoint_id : subscriptionMatches(endpoint.events, type)) return true;
  }
  return false;
}

const scopeKey = (scope: Scope) => `${scope.clubId}\u0000${scope.env}`;

/**
 * The endpoints of the scopes endpointsByScope read. A class rather than a
 * returned lookup closure: the relay reads them on every pass, and a closure
 * made per pass loses its optimized code at every full GC.
 */
export class ScopeEndpoints {
  constructor(private readonly byScope: ReadonlyMap<string, EndpointSubscription[]>) {}

  /** The enabled endpoints of `scope` (none: an empty list). */
  of(scope: Scope): EndpointSubscription[] {
    return this.byScope.get(scopeKey(scope)) ?? [];
  }
}

/**
 * The enabled endpoints of every scope in `scopes`, read in one statement,
 * keyed by `clubId NUL env` (a scope without endpoints maps to an empty list).
 */
export async function endpointsByScope(em: SqlEntityManager, scopes: readonly Scope[]): Promise<ScopeEndpoints> {
  const byScope = new Map<string, EndpointSubscription[]>();
  const clubIds = [...new Set(scopes.map((scope) => scope.clubId))];
  if (clubIds.length > 0) {
    const rows = await em.find(
      WebhookEndpoint,
      { clubId: { $in: clubIds }, enabled: true, deletedAt: null },
      { fields: ["id", "clubId", "env", "events"], disableIdentityMap: true },
    );
    for (const row of rows) {
      const key = scopeKey(row);
      const list = byScope.get(key) ?? [];
      list.push({ id: row.id, events: row.events });
      byScope.set(key, list);
    }
  }
  return new ScopeEndpoints(byScope);
}
