import type { Scope } from "../scope.js";
import type { HotStore } from "./index.js";

/** The enabled endpoints' subscriptions of a scope, as JSON arrays of their `events`. */
const ENDPOINT_EVENTS = {
  postgresql: "select events from webhook_endpoints where club_id = ? and env = ? and enabled and deleted_at is null",
  sqlite: "select events from webhook_endpoints where club_id = ? and env = ? and enabled and deleted_at is null",
};

/**
 * The `events` list of each enabled endpoint of `scope`, read in the caller's
 * transaction: a participant's write leaves out the outbox rows no endpoint
 * takes (the relay would mark them relayed unsent).
 */
export async function readEndpointEvents(store: HotStore, scope: Scope): Promise<string[][]> {
  const rows = await store.select<{ events: string[] | string }>(ENDPOINT_EVENTS, [scope.clubId, scope.env]);
  return rows.map((row) => (typeof row.events === "string" ? (JSON.parse(row.events) as string[]) : row.events));
}
