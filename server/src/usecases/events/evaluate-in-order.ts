import type { SqlEntityManager } from "@mikro-orm/knex";
import { evaluate } from "../../engine/evaluate.js";
import type { ApiEffect, ClubConfig } from "../../engine/config.js";
import { qualifiesReferral, type ReferralConfig } from "../../engine/referral.js";
import type { EngineEvent, ParticipantState } from "../../engine/types.js";
import { withPendingReferral } from "../../db/events/event-keys.js";
import { hotStore } from "../../db/hot/index.js";
import type { Database } from "../../db/orm.js";
import { readLocked } from "../../db/participants/locks.js";
import type { Scope } from "../../db/scope.js";
import type { PublishedConfig } from "../club/index.js";
import { clubTimeZone, gatherEvaluation, loadStatesForEvents, stateAfter, type ParticipantSnapshot, type PendingWrites } from "../evaluation/index.js";
import { qualifyReferralOnEvent } from "../referrals/index.js";
import { gatherTournamentScores } from "../tournaments/index.js";
import { wroteOutbox, type IngestOptions } from "./event-rows.js";

/** Stored events of one locked participant, to evaluate in order. */
export interface ParticipantRun {
  participant: ParticipantSnapshot;
  stored: { id: string; event: EngineEvent }[];
}

/**
 * Evaluates stored events of locked participants, each participant's one
 * after the other, and gathers their deltas into `writes`; returns each
 * event's effects (with reward and delivery ids filled in), per participant.
 * The states are read once for all the events and carried forward in memory,
 * as reading them back after each event would give.
 *
 * An event that qualifies the participant's pending referral also pays it,
 * and the referred participant's reward joins the event's effects. Paying
 * reads and writes the stored state of the participant and of its referrer
 * (who may be among the participants here), so what is gathered is written
 * first, and the states of the participants still to evaluate are read again
 * after.
 */
export async function evaluateInOrder(
  em: SqlEntityManager,
  db: Database,
  scope: Scope,
  published: PublishedConfig,
  runs: ParticipantRun[],
  writes: PendingWrites,
  opts: IngestOptions,
): Promise<ApiEffect[][][]> {
  const { config } = published;
  const { now, publicUrl } = opts;
  const at = { now, timeZone: clubTimeZone(config) };
  const loaded = new Map<ParticipantRun, { snapshot: ParticipantSnapshot; state: ParticipantState; referral: ReferralConfig | null }>();
  // A participant's columns as stored when read again (after a referral paid), else as locked.
  const current = new Map<ParticipantRun, ParticipantSnapshot>();
  const load = async (loading: ParticipantRun[]) => {
    // The driver's snapshots as they are (plain objects, never changed: each event's columns after are a new one).
    const snapshots = loading.map((run) => current.get(run) ?? run.participant);
    // Issued together: on PostgreSQL the reads share one round trip (see HotStore.select).
    const [states, referrals] = await Promise.all([
      loadStatesForEvents(
        em,
        snapshots,
        config,
        at,
        loading.map((run) => run.stored.map(({ event }) => event)),
      ),
      pendingReferrals(em, scope, config, loading),
    ]);
    loading.forEach((run, i) => loaded.set(run, { snapshot: snapshots[i], state: states[i], referral: referrals.get(run.participant.id) ?? null }));
  };
  await load(runs);
  const results: ApiEffect[][][] = new Array(runs.length);
  const trace = opts.traces !== undefined;
  /*
   * Index loops and literals without spreads: this body runs once per event of a batch. The three calls' arguments
   * are one object each for the whole loop, their per-event fields set before each call: none of the calls keeps
   * its argument or hands it on (they read it, and what they keep they copy), and three literals per event were
   * ≈ 250 bytes of each event's allocation.
   */
  const input = { config, state: undefined as unknown as ParticipantState, event: undefined as unknown as EngineEvent, now, timeZone: at.timeZone, trace };
  const target = { scope, config, participant: undefined as unknown as ParticipantSnapshot, state: input.state, now, publicUrl, event: { id: "", type: "" } };
  const scoring = { scope, participantId: "", config, event: input.event, now, timeZone: at.timeZone };
  for (let r = 0; r < runs.length; r++) {
    const run = runs[r];
    const { participant } = run;
    let { snapshot, state, referral } = loaded.get(run)!;
    // Of the exact length, filled by index (pushing grows a list to 17 slots: once per participant of a batch).
    const effects: ApiEffect[][] = new Array(run.stored.length);
    for (let i = 0; i < run.stored.length; i++) {
      const { id, event } = run.stored[i];
      input.state = state;
      input.event = event;
      const evaluation = evaluate(input);
      if (evaluation.explanation) opts.traces!.set(id, evaluation.explanation);
      target.participant = snapshot;
      target.state = state;
      target.event.id = id;
      target.event.type = event.type;
      const gathered = gatherEvaluation(writes, target, evaluation);
      scoring.participantId = participant.id;
      scoring.event = event;
      gatherTournamentScores(writes.standings, scoring);
      if (referral === null || !qualifiesReferral(referral, event)) {
        effects[i] = gathered.effects;
        // Carried only to the participant's next event here: after its last (a batch's usual one), nothing reads it.
        if (i + 1 < run.stored.length) {
          snapshot = gathered.participant;
          state = stateAfter(state, config, evaluation.delta, gathered);
        }
        continue;
      }
      wroteOutbox(opts);
      await writes.flush(em);
      const paid = await qualifyReferralOnEvent(em, scope, { config, participant, event, now, publicUrl });
      effects[i] = [...gathered.effects, ...paid];
      // This participant's later events and the next participants' start from their stored rows, read again.
      const rest = { participant, stored: run.stored.slice(i + 1) };
      const later = runs.slice(r + 1);
      const stored = await readLocked(await hotStore(em), [participant.id, ...later.map((next) => next.participant.id)]);
      for (const next of [rest, ...later]) current.set(next, stored.get(next.participant.id)!);
      await load([rest, ...later]);
      ({ snapshot, state, referral } = loaded.get(rest)!);
    }
    results[r] = effects;
  }
  return results;
}

/**
 * The club's referral program for each participant with a pending referral
 * that one of its events may qualify, by participant id; the others' events
 * need not ask one by one (qualifyReferralOnEvent decides for each that may).
 */
async function pendingReferrals(em: SqlEntityManager, scope: Scope, config: ClubConfig, runs: ParticipantRun[]): Promise<Map<string, ReferralConfig>> {
  const referral = config.referral as ReferralConfig | undefined;
  if (!referral?.enabled) return new Map();
  const candidates = runs.filter((run) => run.stored.some(({ event }) => qualifiesReferral(referral, event))).map((run) => run.participant.id);
  if (candidates.length === 0) return new Map();
  const pending = await withPendingReferral(await hotStore(em), scope, candidates);
  return new Map(pending.map((id) => [id, referral]));
}
