/**
 * The webhook body envelope and endpoint subscriptions.
 *
 * The body is built once, when the sending is created, and stored; every
 * retry sends the same bytes, so a client that deduplicates on `id` or hashes
 * the body sees one notice, and the signature covers exactly what was stored.
 */

export interface EnvelopeInput {
  /** The notice id (`evt_…`), the same for every endpoint and every retry. */
  id: string;
  type: string;
  createdAt: Date;
  clubId: string;
  env: "test" | "live";
  data: Record<string, unknown>;
}

/** The exact JSON body of a webhook request (keys in the contract's order). */
export function buildEnvelope(input: EnvelopeInput): string {
  return JSON.stringify({
    id: input.id,
    type: input.type,
    created_at: input.createdAt.toISOString(),
    club_id: input.clubId,
    env: input.env,
    data: input.data,
  });
}

/**
 * What an endpoint that marked no events receives. Participant notices
 * (participant.created, level.up, checkin.completed, …) are delivered only
 * when named, because they are high-volume and most integrations ignore them.
 */
export const DEFAULT_SUBSCRIPTION: readonly string[] = ["reward.*", "referral.qualified", "message.requested"];

/** The events an endpoint effectively receives: its own list, or the default one when empty. */
export function effectiveEvents(endpointEvents: readonly string[]): readonly string[] {
  return endpointEvents.length > 0 ? endpointEvents : DEFAULT_SUBSCRIPTION;
}

/**
 * Whether an endpoint subscribed to `endpointEvents` receives `type`. An entry
 * is an exact event name or `<group>.*`, which matches every event of the group
 * (`reward.*` matches `reward.granted`, not `reward` nor `rewards.x`).
 */
export function subscriptionMatches(endpointEvents: readonly string[], type: string): boolean {
  return effectiveEvents(endpointEvents).some((entry) =>
    entry.endsWith(".*") ? type.startsWith(entry.slice(0, -1)) && type.length > entry.length - 1 : entry === type,
  );
}
