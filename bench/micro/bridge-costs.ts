/**
 * The Node CPU and allocation of a batch's pure part, between the store and
 * the engine: for each event of a batch of 500 (the bench's casino mix, its
 * participants' states loaded once from a real database), the event row,
 * evaluate, gatherEvaluation, the tournament scores and the carried state,
 * then the answers — what evaluateInOrder and applyInOrder do between their
 * reads and the flush, without I/O. The loaded states are reused for every
 * round (evaluation is pure), so rounds are alike and the figures steady.
 * Not a test: run `npx tsx bench/micro/bridge-costs.ts [sqlite|postgresql]`.
 * Prints the median CPU per batch (process.cpuUsage over BRIDGE_ROUNDS
 * rounds) and, with BRIDGE_ALLOC=1, the sampled allocation per batch.
 */
import { Session } from "node:inspector/promises";
import { evaluate } from "../../server/src/engine/evaluate.js";
import { stateAfter } from "../../server/src/usecases/evaluation/carried-state.js";
import { requirePublishedConfig } from "../../server/src/usecases/club/config.js";
import { engineEvent, eventRow, ingestBatch } from "../../server/src/usecases/events/ingest.js";
import { lockByExternalId } from "../../server/src/db/participants/locks.js";
import { clubTimeZone, gatherEvaluation, loadStatesForEvents, type ParticipantSnapshot } from "../../server/src/usecases/evaluation/index.js";
import { PendingWrites } from "../../server/src/usecases/evaluation/pending-writes.js";
import { gatherTournamentScores } from "../../server/src/usecases/tournaments/standing-writes.js";
import { hotStore } from "../../server/src/db/hot/index.js";
import type { EngineEvent, ParticipantState } from "../../server/src/engine/types.js";
import type { DatabaseKind } from "../../test/support/databases.js";
import { eventInput, PUBLIC_URL } from "../../test/usecases/fixtures.js";
import { openTestClub } from "../../test/support/club.js";
import { casinoEvent } from "./casino-mix.js";

const BATCH_SIZE = 500;
const PLAYERS = 2000;
const ROUNDS = Number(process.env.BRIDGE_ROUNDS ?? 200);
const WARM_BATCHES = Number(process.env.BRIDGE_WARM_BATCHES ?? 12);

const kind = (process.argv[2] ?? "sqlite") as DatabaseKind;
const club = await openTestClub(kind);
try {
  let next = 0;
  const batch = () => Array.from({ length: BATCH_SIZE }, () => eventInput(casinoEvent(next++, PLAYERS)));
  for (let b = 0; b < WARM_BATCHES; b++) await ingestBatch(club.db, club.scope, batch(), { now: new Date(), publicUrl: PUBLIC_URL });
  const { config } = await requirePublishedConfig(club.db, club.scope);
  const now = new Date();
  const timeZone = clubTimeZone(config);
  const inputs = batch();
  // The batch's events by participant, in order (as planBatch groups them).
  const byParticipant = new Map<string, EngineEvent[]>();
  for (const input of inputs) {
    const list = byParticipant.get(input.participant) ?? [];
    list.push(engineEvent(input, now));
    byParticipant.set(input.participant, list);
  }
  const externalIds = [...byParticipant.keys()];
  const { snapshots, states } = await club.db.em().transactional(async (em) => {
    const locked = await lockByExternalId(await hotStore(em), club.scope, externalIds);
    const snapshots: ParticipantSnapshot[] = externalIds.map((id) => locked.get(id)!);
    const states = await loadStatesForEvents(
      em,
      snapshots,
      config,
      { now, timeZone },
      externalIds.map((id) => byParticipant.get(id)!),
    );
    return { snapshots, states };
  });
  const runs = externalIds.map((id, i) => ({ snapshot: snapshots[i], state: states[i], events: byParticipant.get(id)! }));
  const scope = club.scope;

  /** One batch's pure part; returns something so nothing is optimized away. */
  const round = (): number => {
    const writes = new PendingWrites();
    let effectsCount = 0;
    for (let r = 0; r < runs.length; r++) {
      let { snapshot, state }: { snapshot: ParticipantSnapshot; state: ParticipantState } = runs[r];
      const participantId = snapshot.id;
      for (let i = 0; i < runs[r].events.length; i++) {
        const event = runs[r].events[i];
        const row = eventRow(scope, participantId, event, event.id ?? null, now, "processed", now);
        const evaluation = evaluate({ config, state, event, now, timeZone, trace: false });
        const gathered = gatherEvaluation(
          writes,
          { scope, config, participant: snapshot, state, now, publicUrl: PUBLIC_URL, event: { id: row.id, type: event.type } },
          evaluation,
        );
        gatherTournamentScores(writes.standings, { scope, participantId, config, event, now, timeZone });
        // As evaluateInOrder: carried only to the participant's next event.
        if (i + 1 < runs[r].events.length) {
          snapshot = gathered.participant;
          state = stateAfter(state, config, evaluation.delta, gathered);
        }
        row.effects = gathered.effects;
        row.effectsCount = gathered.effects.length;
        writes.events.push(row);
        effectsCount += gathered.effects.length;
      }
    }
    return effectsCount + writes.events.length + writes.ledger.length;
  };

  for (let i = 0; i < 50; i++) round();
  const cpu: number[] = [];
  let sink = 0;
  for (let i = 0; i < ROUNDS; i++) {
    const start = process.cpuUsage();
    sink += round();
    const used = process.cpuUsage(start);
    cpu.push((used.user + used.system) / 1000);
  }
  cpu.sort((a, b) => a - b);
  console.log(
    `${kind}: pure part ${cpu[Math.floor(cpu.length / 2)].toFixed(2)} ms CPU per batch median (p25 ${cpu[Math.floor(cpu.length / 4)].toFixed(2)}, p75 ${cpu[Math.floor((cpu.length * 3) / 4)].toFixed(2)}; ${runs.length} participants, ${sink / ROUNDS} effects+rows per batch)`,
  );
  if (process.env.BRIDGE_ALLOC) {
    const session = new Session();
    session.connect();
    await session.post("HeapProfiler.enable");
    await session.post("HeapProfiler.startSampling", {
      samplingInterval: 1024,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true,
    });
    const ALLOC_ROUNDS = 20;
    for (let i = 0; i < ALLOC_ROUNDS; i++) round();
    const { profile } = await session.post("HeapProfiler.stopSampling");
    type Node = { callFrame: { functionName: string; url: string; lineNumber: number }; selfSize: number; children: Node[] };
    const bySite = new Map<string, number>();
    let total = 0;
    const walk = (node: Node, caller: string) => {
      const here =
        node.callFrame.url === "" && caller !== ""
          ? `${caller} > ${node.callFrame.functionName || "(native)"}`
          : `${node.callFrame.functionName || "(anon)"} ${node.callFrame.url.replace(/^.*\/(server|test|node_modules)\//, "$1/")}:${node.callFrame.lineNumber + 1}`;
      if (node.selfSize > 0) {
        bySite.set(here, (bySite.get(here) ?? 0) + node.selfSize);
        total += node.selfSize;
      }
      for (const child of node.children) walk(child, node.callFrame.url === "" ? caller : here);
    };
    walk(profile.head as Node, "");
    console.log(`allocated ≈ ${(total / ALLOC_ROUNDS / 1024).toFixed(0)} KiB per batch (sampled)`);
    for (const [site, bytes] of [...bySite].sort((a, b) => b[1] - a[1]).slice(0, Number(process.env.TOP ?? 30))) {
      console.log(`${(bytes / ALLOC_ROUNDS / 1024).toFixed(0).padStart(8)} KiB  ${site}`);
    }
    session.disconnect();
  }
} finally {
  await club.close();
}
