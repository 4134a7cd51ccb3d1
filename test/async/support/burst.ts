import type { ClubClient } from "./client.js";

/**
 * A burst of casino bets sent with `Prefer: respond-async`, and what exactly
 * once means for it. Each participant places `betsEach` bets of `stake` reais
 * with no game in `meta`, so only the demo club's `bet-xp` rule applies (XP =
 * stake, well under its 5000-a-day cap): every bet is worth `stake` XP, and
 * with 1000 ≤ stake × betsEach < 3828 every participant rises to level 2 once
 * and completes the weekly "bet R$ 500" mission once.
 */
export interface Burst {
  participants: string[];
  events: Array<{ participant: string; type: "bet.placed"; id: string; amount: number; currency: "BRL" }>;
  stake: number;
  betsEach: number;
}

/** The webhooks a burst makes per participant, for an endpoint that names them. */
export const BURST_WEBHOOKS = ["participant.created", "level.up", "mission.completed"] as const;

export function betBurst(options: { tag: string; participants: number; betsEach: number; stake: number }): Burst {
  const xp = options.stake * options.betsEach;
  if (xp < 1000 || xp >= 3828) throw new RangeError(`a participant's XP must reach level 2 and stay below level 3 (1000..3827), got ${xp}`);
  const participants = Array.from({ length: options.participants }, (_, p) => `${options.tag}_jogador_${p}`);
  // Interleaved (p0 bet 0, p1 bet 0, …) so concurrent sends contend for the same participants.
  const events = Array.from({ length: options.betsEach }, (_, bet) =>
    participants.map((participant) => ({
      participant,
      type: "bet.placed" as const,
      id: `${participant}-aposta-${bet}`,
      amount: options.stake,
      currency: "BRL" as const,
    })),
  ).flat();
  return { participants, events, stake: options.stake, betsEach: options.betsEach };
}

/** Runs `work` on every item with at most `limit` at a time; results in the items' order. */
export async function mapLimit<T, R>(items: readonly T[], limit: number, work: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  const lane = async () => {
    for (let i = next++; i < items.length; i = next++) results[i] = await work(items[i], i);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, lane));
  return results;
}

/** How a client sends events: once (a failure is an error), or riding out a server restart. */
export interface SendOptions {
  concurrency?: number;
  /**
   * Send a request that got no answer, or a 5xx, again — unchanged: the
   * event ids make it idempotent — for up to RETRY_FOR_MS.
   */
  retryFailures?: boolean;
}

/** Long enough for a `clube` process to be killed and started again on a busy machine. */
const RETRY_FOR_MS = 120_000;

/** POSTs each event on its own with `Prefer: respond-async`, `concurrency` at a time; the accepted ids in event order. */
export async function sendAsync(client: ClubClient, events: readonly object[], options: SendOptions = {}): Promise<string[]> {
  const deadline = Date.now() + RETRY_FOR_MS;
  return mapLimit(events, options.concurrency ?? 16, async (event) => (await postAsync(client, "/v1/events", event, options, deadline))[0]);
}

/** POSTs the events as one `Prefer: respond-async` batch (at most 500); the accepted ids in event order. */
export async function sendAsyncBatch(client: ClubClient, events: readonly object[], options: SendOptions = {}): Promise<string[]> {
  return postAsync(client, "/v1/events/batch", { events }, options, Date.now() + RETRY_FOR_MS);
}

async function postAsync(client: ClubClient, path: string, body: object, options: SendOptions, deadline: number): Promise<string[]> {
  const retryable = () => options.retryFailures === true && Date.now() < deadline;
  for (;;) {
    const answer = await client.call("POST", path, { body, headers: { Prefer: "respond-async" } }).catch((error: unknown) => {
      if (!retryable()) throw error;
      return null;
    });
    if (answer?.status === 202) return answer.body.event_ids as string[];
    if (answer && (answer.status < 500 || !retryable()))
      throw new Error(`POST ${path}: expected HTTP 202, got ${answer.status}: ${JSON.stringify(answer.body)}`);
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}
