import type { RequiredEntityData } from "@mikro-orm/core";
import type { ApiEffect } from "../../engine/config.js";
import type { Evaluation } from "../../engine/types.js";
import type { OutboxMessage } from "../../db/entities/index.js";
import { hotStore, type HotStore, type Write } from "../../db/hot/index.js";
import { readEndpointEvents } from "../../db/hot/webhook-subscriptions.js";
import { subscriptionMatches } from "../../webhooks/envelope.js";
import type { SqlEntityManager } from "@mikro-orm/knex";
import type { AfterCommit } from "../shared/after-commit.js";
import { gatherEvaluation } from "./gather-evaluation.js";
import { PendingWrites } from "./pending-writes.js";

/** Where a claim is written: what gatherEvaluation needs, and the transaction (or, with `on`, the tables' descriptions). */
export type ClaimTarget = Parameters<typeof gatherEvaluation>[1] & { em: SqlEntityManager };

/**
 * Drops the webhook rows of `outbox` no endpoint subscribes to (the relay
 * would mark them relayed unsent), so a club without endpoints writes none.
 */
export function keepSubscribed(outbox: { kind?: unknown; payload?: unknown }[], endpointEvents: readonly string[][]): void {
  const kept = outbox.filter((row) => {
    const type = (row.payload as { type?: unknown } | undefined)?.type;
    return row.kind !== "webhook" || typeof type !== "string" || endpointEvents.some((events) => subscriptionMatches(events, type));
  });
  outbox.length = 0;
  outbox.push(...kept);
}

/** A claim's delta gathered (no I/O yet): its effects carry `reward_id` already. */
export interface GatheredClaim {
  target: ClaimTarget;
  writes: PendingWrites;
  effects: ApiEffect[];
}

/** Gathers the delta of `evaluation` (none: a claim that grants nothing) for writeClaim. */
export function gatherClaim(target: ClaimTarget, evaluation: Evaluation | null): GatheredClaim {
  const writes = new PendingWrites();
  const effects = evaluation ? gatherEvaluation(writes, target, evaluation).effects : [];
  return { target, writes, effects };
}

/**
 * Writes a gathered claim in the target's transaction (one round trip on
 * PostgreSQL): its delta, `webhooks` and the rows of `also`, with the outbox
 * rows no endpoint takes left out. `afterCommit` is told `"outbox"` only
 * when some outbox row is written (an idle relay pass still costs a
 * transaction). `on`: a transaction of the caller's on the driver;
 * `endpointEvents`: the subscriptions, when the caller read them already.
 */
export async function writeClaim(
  claim: GatheredClaim,
  webhooks: RequiredEntityData<OutboxMessage>[],
  opts: { also?: Write[]; afterCommit?: AfterCommit; on?: HotStore; endpointEvents?: string[][] },
): Promise<void> {
  const { target, writes } = claim;
  writes.outbox.push(...webhooks);
  const store = opts.on ?? (await hotStore(target.em));
  keepSubscribed(writes.outbox, opts.endpointEvents ?? (await readEndpointEvents(store, target.scope)));
  await writes.flush(target.em, opts.also ?? [], store);
  if (writes.outbox.length > 0) opts.afterCommit?.("outbox");
}
