/**
 * Micro-benchmark of the pure CPU the event path spends per event outside SQL,
 * stage by stage, over the demo casino and the bench's traffic mix (bets,
 * settlements, deposits, sessions over 2,000 players, in batches of 500):
 * evaluate, gatherEvaluation (rows, notifications, webhooks), stateAfter,
 * gatherTournamentScores, the event row, unknownTypeWarning and the JSON of
 * the answer. Not a test: run
 * `npx tsx bench/micro/event-path-costs.ts [root ...]`, where each `root` is a
 * checkout whose server/src to load (default this one): several roots are
 * measured in turns in the same process run, so a before/after comparison
 * sees the same machine load. Prints µs per event per stage.
 */
import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";

const here = new URL("../../", import.meta.url).pathname;
const roots = (process.argv.length > 2 ? process.argv.slice(2) : [here]).map((root) => resolve(root));
const PARTICIPANTS = 2000;
const BATCH = 500;
const EVENTS = 20_000;
const ROUNDS = Number(process.env.ROUNDS ?? 5);

/** The i-th event of the bench's traffic (bench/run.ts casinoEvent), as the validator leaves it. */
function casinoEvent(i: number, occurredAt: string): { participant: string; event: Record<string, unknown> } {
  const participant = `bench-${i % PARTICIPANTS}`;
  const id = `micro-${i}`;
  const games = ["video-slots", "live-casino", "crash", "roulette", "fast-games"];
  const game_type = games[i % games.length];
  const base = { id, currency: "BRL", occurred_at: occurredAt };
  switch (i % 10) {
    case 0:
      return { participant, event: { ...base, type: "deposit.confirmed", amount: 20 + (i % 7) * 15, meta: { method: "pix" } } };
    case 1:
    case 2:
    case 3:
    case 4:
    case 5:
      return { participant, event: { ...base, type: "bet.placed", amount: `${1 + (i % 50)}.50`, meta: { game_id: `game-${i % 40}`, game_type } } };
    case 6:
    case 7:
    case 8:
      return {
        participant,
        event: { ...base, type: "bet.settled", amount: i % 3 === 0 ? 0 : 4 + (i % 30), meta: { game_type, ...(i % 3 === 0 ? { outcome: "lost" } : {}) } },
      };
    default:
      return { participant, event: { ...base, type: "session.started", amount: null, meta: {} } };
  }
}

interface Tree {
  root: string;

  evaluate: any;
  gatherEvaluation: any;
  stateAfter: any;
  gatherTournamentScores: any;
  eventRow: any;
  unknownTypeWarning: any;
  PendingWrites: any;
  participantSnapshot: any;
  config: any;
}

async function loadTree(root: string): Promise<Tree> {
  const load = (path: string) => import(pathToFileURL(resolve(root, path)).href);
  const { evaluate } = await load("server/src/engine/evaluate.ts");
  // A tree from before evaluation/participant-state.ts was split holds both there.
  const split = existsSync(resolve(root, "server/src/usecases/evaluation/gather-evaluation.ts"));
  const { gatherEvaluation } = await load(
    split ? "server/src/usecases/evaluation/gather-evaluation.ts" : "server/src/usecases/evaluation/participant-state.ts",
  );
  const { participantSnapshot } = await load(
    split ? "server/src/usecases/evaluation/participant-snapshot.ts" : "server/src/usecases/evaluation/participant-state.ts",
  );
  const { stateAfter } = await load("server/src/usecases/evaluation/carried-state.ts");
  const { gatherTournamentScores } = await load("server/src/usecases/tournaments/standing-writes.ts");
  const { eventRow } = await load("server/src/usecases/events/ingest.ts");
  const { unknownTypeWarning } = await load("server/src/engine/trace.ts");
  const { PendingWrites } = await load("server/src/usecases/evaluation/pending-writes.ts");
  const { validateClubConfig } = await load("server/src/usecases/club/config.ts");
  const config = validateClubConfig(JSON.parse(readFileSync(resolve(root, "server/src/demo/casino.json"), "utf8")));
  return { root, evaluate, gatherEvaluation, stateAfter, gatherTournamentScores, eventRow, unknownTypeWarning, PendingWrites, participantSnapshot, config };
}

const STAGES = ["evaluate", "gatherEvaluation", "stateAfter", "tournamentScores", "eventRow", "unknownTypeWarning", "answerJson"] as const;
type Stage = (typeof STAGES)[number];

/**
 * Runs EVENTS events through the pure parts as applyInOrder does, in batches
 * of BATCH: each participant's snapshot and state carried from event to event
 * (a fresh load per batch keeps only what the database would give back).
 * Returns the nanoseconds spent per stage.
 */
function runOnce(tree: Tree, round: number): Record<Stage, number> {
  const { config } = tree;
  const timeZone: string = config.checkin?.timezone ?? "America/Sao_Paulo";
  const scope = { clubId: "club_micro", env: "test" };
  const spent = Object.fromEntries(STAGES.map((stage) => [stage, 0n])) as Record<Stage, bigint>;
  const participants = new Map<string, { snapshot: any; state: any }>();
  const base = Date.parse("2026-11-21T15:00:00.000Z") + round * 3_600_000;
  let clock = process.hrtime.bigint();
  const lap = (stage: Stage) => {
    const t = process.hrtime.bigint();
    spent[stage] += t - clock;
    clock = t;
  };
  for (let start = 0; start < EVENTS; start += BATCH) {
    // The clock moves between batches, as requests arrive over time.
    const now = new Date(base + start * 10);
    const writes = new tree.PendingWrites();
    for (let i = start; i < start + BATCH; i++) {
      const { participant: externalId, event } = casinoEvent(i, now.toISOString());
      let known = participants.get(externalId);
      if (!known) participants.set(externalId, (known = newPlayer(tree, externalId)));
      clock = process.hrtime.bigint();
      const row = tree.eventRow(scope, known.snapshot.id, event, event.id, now);
      lap("eventRow");
      const evaluation = tree.evaluate({ config, state: known.state, event, now, timeZone });
      lap("evaluate");
      const gathered = tree.gatherEvaluation(
        writes,
        { scope, config, participant: known.snapshot, state: known.state, now, publicUrl: "http://127.0.0.1", event: { id: row.id, type: event.type } },
        evaluation,
      );
      lap("gatherEvaluation");
      tree.gatherTournamentScores(writes.standings, { scope, participantId: known.snapshot.id, config, event, now, timeZone });
      lap("tournamentScores");
      const state = tree.stateAfter(known.state, config, evaluation.delta, gathered);
      lap("stateAfter");
      const warning = tree.unknownTypeWarning(config, event.type);
      lap("unknownTypeWarning");
      JSON.stringify({ event_id: row.id, duplicate: false, effects: gathered.effects, ...(warning ? { warnings: [warning] } : {}) });
      lap("answerJson");
      known.snapshot = gathered.participant;
      // The next batch loads the state again: dedupe keys of earlier batches are not among the keys it looks up.
      known.state = {
        ...state,
        ruleRuns: Object.fromEntries(Object.entries(state.ruleRuns).map(([id, run]: [string, any]) => [id, { ...run, dedupeKeys: [] }])),
      };
    }
  }
  return Object.fromEntries(STAGES.map((stage) => [stage, Number(spent[stage])])) as Record<Stage, number>;
}

/** A player seen for the first time: its snapshot and the engine state it starts from. */
function newPlayer(tree: Tree, externalId: string): { snapshot: any; state: any } {
  const snapshot = tree.participantSnapshot({
    id: `par_${externalId}`,
    externalId,
    xp: 0,
    level: 1,
    tierCode: "bronze",
    tags: [],
    eventCounts: {},
    peakMonth: null,
    peakLevel: null,
    priorMonthPeakLevel: null,
  });
  const state = {
    xp: 0,
    level: 1,
    tierCode: "bronze",
    tags: [],
    balances: {},
    lots: [],
    badges: [],
    eventCountsBefore: {},
    ruleRuns: {},
    missions: {},
    peakLevel: null,
  };
  return { snapshot, state };
}

/**
 * Each stage alone over the inputs one pipeline run gave (the same states,
 * events and evaluations), timed by CPU time (user + system) rather than the
 * wall clock: on a shared machine the wall clock also counts waiting for a
 * core. Returns µs per event per stage.
 */
function isolatedCpu(tree: Tree): Record<Stage, number> {
  const { config } = tree;
  const timeZone: string = config.checkin?.timezone ?? "America/Sao_Paulo";
  const scope = { clubId: "club_micro", env: "test" };
  const now = new Date(Date.parse("2026-11-21T15:00:00.000Z"));
  const inputs: { event: any; snapshot: any; state: any; evaluation: any; gathered: any; rowId: string }[] = [];
  const participants = new Map<string, { snapshot: any; state: any }>();
  let writes = new tree.PendingWrites();
  for (let i = 0; i < EVENTS; i++) {
    if (i % BATCH === 0) writes = new tree.PendingWrites();
    const { participant: externalId, event } = casinoEvent(i, now.toISOString());
    let known = participants.get(externalId);
    if (!known) participants.set(externalId, (known = newPlayer(tree, externalId)));
    const evaluation = tree.evaluate({ config, state: known.state, event, now, timeZone });
    const rowId = `evt_${i}`;
    const gathered = tree.gatherEvaluation(
      writes,
      { scope, config, participant: known.snapshot, state: known.state, now, publicUrl: "http://127.0.0.1", event: { id: rowId, type: event.type } },
      evaluation,
    );
    inputs.push({ event, snapshot: known.snapshot, state: known.state, evaluation, gathered, rowId });
    known.snapshot = gathered.participant;
    known.state = tree.stateAfter(known.state, config, evaluation.delta, gathered);
  }
  const timed = (run: (input: (typeof inputs)[number], i: number) => void): number => {
    const before = process.cpuUsage();
    inputs.forEach(run);
    const used = process.cpuUsage(before);
    return (used.user + used.system) / inputs.length;
  };
  let stageWrites = new tree.PendingWrites();
  return {
    evaluate: timed(({ event, state }) => tree.evaluate({ config, state, event, now, timeZone })),
    gatherEvaluation: timed(({ event, snapshot, state, evaluation, rowId }, i) => {
      if (i % BATCH === 0) stageWrites = new tree.PendingWrites();
      tree.gatherEvaluation(
        stageWrites,
        { scope, config, participant: snapshot, state, now, publicUrl: "http://127.0.0.1", event: { id: rowId, type: event.type } },
        evaluation,
      );
    }),
    stateAfter: timed(({ state, evaluation, gathered }) => tree.stateAfter(state, config, evaluation.delta, gathered)),
    tournamentScores: timed(({ event, snapshot }, i) => {
      if (i % BATCH === 0) stageWrites = new tree.PendingWrites();
      tree.gatherTournamentScores(stageWrites.standings, { scope, participantId: snapshot.id, config, event, now, timeZone });
    }),
    eventRow: timed(({ event, snapshot }) => tree.eventRow(scope, snapshot.id, event, event.id, now)),
    unknownTypeWarning: timed(({ event }) => tree.unknownTypeWarning(config, event.type)),
    answerJson: timed(({ gathered, rowId }) => JSON.stringify({ event_id: rowId, duplicate: false, effects: gathered.effects })),
  };
}

const trees = [];
for (const root of roots) trees.push(await loadTree(root));
const totals = trees.map(() => Object.fromEntries(STAGES.map((stage) => [stage, [] as number[]])) as Record<Stage, number[]>);
// CPU time of whole rounds (user + system): unlike the stages' wall clock, it does not count time the process waited for a core.
const cpu = trees.map(() => [] as number[]);
// Warm-up, then rounds alternating between trees so both see the same load.
for (const tree of trees) runOnce(tree, 0);
for (let round = 1; round <= ROUNDS; round++) {
  trees.forEach((tree, t) => {
    const before = process.cpuUsage();
    const spent = runOnce(tree, round);
    const used = process.cpuUsage(before);
    cpu[t].push((used.user + used.system) / EVENTS);
    for (const stage of STAGES) totals[t][stage].push(spent[stage] / EVENTS / 1000);
  });
}
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
console.log(`µs/event (median of ${ROUNDS} rounds of ${EVENTS} events, batches of ${BATCH}, ${PARTICIPANTS} players, demo casino)`);
console.log(["stage".padEnd(20), ...trees.map((tree) => tree.root.slice(-24).padStart(26))].join(""));
for (const stage of [...STAGES, "total"] as const) {
  const cells = totals.map((t) => (stage === "total" ? STAGES.reduce((sum, s) => sum + median(t[s]), 0) : median(t[stage])));
  console.log([stage.padEnd(20), ...cells.map((value) => value.toFixed(2).padStart(26))].join(""));
}
console.log(["cpu of a round".padEnd(20), ...cpu.map((values) => median(values).toFixed(2).padStart(26))].join(""));

// Each stage alone, by CPU time, trees in turns.
const isolated = trees.map(() => Object.fromEntries(STAGES.map((stage) => [stage, [] as number[]])) as Record<Stage, number[]>);
for (let round = 0; round < ROUNDS; round++) {
  trees.forEach((tree, t) => {
    const spent = isolatedCpu(tree);
    for (const stage of STAGES) isolated[t][stage].push(spent[stage]);
  });
}
console.log(`\nCPU µs/event, each stage alone over the same inputs (median of ${ROUNDS})`);
for (const stage of [...STAGES, "total"] as const) {
  const cells = isolated.map((t) => (stage === "total" ? STAGES.reduce((sum, s) => sum + median(t[s]), 0) : median(t[stage])));
  console.log([stage.padEnd(20), ...cells.map((value) => value.toFixed(2).padStart(26))].join(""));
}
