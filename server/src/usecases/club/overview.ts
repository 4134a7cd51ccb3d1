import type { components } from "../../../../generated/types.js";
import { Delivery, ParticipantReward, WebhookEndpoint } from "../../db/entities/index.js";
import type { Database } from "../../db/orm.js";
import { eventCountsPerMinute, sendingCountsByEndpoint } from "../../db/overview-queries.js";
import type { Scope } from "../../db/scope.js";

type ClubOverview = components["schemas"]["ClubOverview"];

const HOUR = 3_600_000;
/** A pending delivery older than this is overdue (staff are warned of it at the same age). */
const OVERDUE_HOURS = 48;

/** The last 24 hours of the club's environment at a glance (the console's overview). */
export async function clubOverview(db: Database, scope: Scope, now: Date): Promise<ClubOverview> {
  const from = new Date(now.getTime() - 24 * HOUR);
  const em = db.em();
  const [events, rewards, pending, overdue, failed, endpoints, sendings] = await Promise.all([
    eventCountsPerMinute(db, scope, from, now),
    em.count(ParticipantReward, { ...scope, grantedAt: { $gte: from, $lt: now } }),
    em.fork().count(Delivery, { ...scope, status: "pending" }),
    em.fork().count(Delivery, { ...scope, status: "pending", createdAt: { $lt: new Date(now.getTime() - OVERDUE_HOURS * HOUR) } }),
    em.fork().count(Delivery, { ...scope, status: "failed", createdAt: { $gte: from, $lt: now } }),
    em.fork().find(WebhookEndpoint, { ...scope, deletedAt: null }, { orderBy: { createdAt: "asc" }, fields: ["id", "url", "enabled"] }),
    sendingCountsByEndpoint(db, scope, from, now),
  ]);
  return {
    from: from.toISOString(),
    to: now.toISOString(),
    events_total: events.total,
    events_per_minute: events.perMinute.map((bucket) => ({ minute: bucket.minute.toISOString(), events: bucket.events })),
    effects_granted: events.effects,
    rewards_granted: rewards,
    deliveries: { pending, overdue, failed },
    webhook_endpoints: endpoints.map((endpoint) => {
      const count = (status: string) => sendings.find((row) => row.endpointId === endpoint.id && row.status === status)?.count ?? 0;
      const succeeded = count("succeeded");
      const failedSendings = count("failed");
      const finished = succeeded + failedSendings;
      return {
        endpoint_id: endpoint.id,
        url: endpoint.url,
        enabled: endpoint.enabled,
        succeeded,
        failed: failedSendings,
        pending: count("pending"),
        success_rate: finished === 0 ? null : succeeded / finished,
      };
    }),
  };
}
