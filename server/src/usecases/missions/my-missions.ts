import type { components } from "../../../../generated/types.js";
import type { ClubConfig, MissionConfig } from "../../engine/config.js";
import { missionAvailable } from "../../engine/missions.js";
import { parseRewardSpec } from "../../engine/rewards.js";
import { Session } from "../../engine/session.js";
import { periodKey } from "../../engine/time.js";
import type { MissionState, ParticipantState } from "../../engine/types.js";
import type { Database } from "../../db/orm.js";
import type { Scope } from "../../db/scope.js";
import { publishedConfigNow } from "../club/index.js";
import { clubTimeZone } from "../evaluation/index.js";
import { readParticipantMissions } from "../participants/index.js";
import { withJsonText } from "../../cache/json-text.js";
import type { MissionsAsked } from "../../db/hot/participant-reads.js";

/** The participant's missions (`/v1/me/missions`): listing (claims: claim-mission.ts). */

type Schemas = components["schemas"];
export type MyMission = Schemas["MyMission"];

/** The missions listed for the participant now (enabled, in their window, of their audience), by `order` then `id`. */
function listedMissions(config: ClubConfig, state: ParticipantState, now: Date, timeZone: string): MissionConfig[] {
  // The engine's own availability test, so a mission is listed exactly when events can advance it.
  const session = new Session(config, state, now, timeZone);
  return missionsInOrder(config).filter((mission) => missionAvailable(session, mission));
}

/** The configuration's missions by `order` then `id`: sorted once per published version. */
function missionsInOrder(config: ClubConfig): MissionConfig[] {
  let sorted = sortedMissions.get(config);
  if (!sorted) {
    sorted = [...config.missions].sort((a, b) => a.order - b.order || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    sortedMissions.set(config, sorted);
  }
  return sorted;
}
const sortedMissions = new WeakMap<ClubConfig, MissionConfig[]>();

/**
 * The state the availability test is given: the participant's tags (all it
 * reads of the participant: a mission's audience) and its progress in the
 * missions' current periods. Nothing else of the participant is read from
 * the database for the list (readParticipantMissions), so the rest is empty.
 */
function listingState(tags: string[], missions: Record<string, MissionState>): ParticipantState {
  return {
    xp: 0,
    level: 0,
    tierCode: "",
    tags,
    balances: NO_RECORD,
    lots: NO_LIST,
    badges: NO_LIST,
    eventCountsBefore: NO_RECORD,
    ruleRuns: NO_RECORD,
    missions,
    peakLevel: null,
  };
}
const NO_RECORD: Readonly<Record<string, never>> = Object.freeze({});
const NO_LIST = Object.freeze([]) as unknown as never[];

/** A mission's reward as the list names it: a configured reward by code and title, XP or currency by its spec. */
function missionReward(config: ClubConfig, spec: string): Schemas["MyMissionReward"] {
  const parsed = parseRewardSpec(spec);
  if (parsed?.kind === "xp") return { code: spec, title: `${parsed.amount} XP` };
  if (parsed?.kind === "currency") {
    const name = config.currencies.find((currency) => currency.code === parsed.currency)?.name ?? parsed.currency;
    return { code: spec, title: `${parsed.amount} ${name}` };
  }
  const code = parsed?.kind === "reward" ? parsed.code : spec;
  return { code, title: config.rewards.find((reward) => reward.code === code)?.title ?? code };
}

/**
 * A mission's fields that depend on the configuration alone, made once per
 * published version's mission, with the JSON text of the view's fields
 * before its progress (`head`, without its closing brace) and after its
 * period key (`tail`, without its opening brace).
 */
type MissionBase = Pick<MyMission, "goal" | "reward"> & { config: ClubConfig; head: string; tail: string };
const missionBases = new WeakMap<MissionConfig, MissionBase>();

function missionBase(config: ClubConfig, mission: MissionConfig): MissionBase {
  let base = missionBases.get(mission);
  if (base?.config !== config) {
    const goal = { kind: mission.goal.kind, field: mission.goal.field, target: mission.goal.target };
    const reward = missionReward(config, mission.reward);
    const { id, title, illustration, event, period } = mission;
    const head = JSON.stringify({ id, title, description: mission.description ?? null, illustration, event, period, goal }).slice(0, -1);
    const tail = JSON.stringify({ reward, starts_at: mission.startsAt ?? null, ends_at: mission.endsAt ?? null }).slice(1);
    base = { config, goal, reward, head, tail };
    missionBases.set(mission, base);
  }
  return base;
}

/** JSON.stringify(view) of missionView's answer, from its base's parts: the same text, the per-period fields serialised alone. */
function missionText(base: MissionBase, view: MyMission): string {
  const { progress, completed, claimable, claimed, period_key } = view;
  // Only plain values splice as JSON.stringify writes them (an undefined field would be left out).
  if (typeof progress !== "number" || typeof completed !== "boolean" || typeof claimed !== "boolean") return JSON.stringify(view);
  return `${base.head},"progress":${JSON.stringify(progress)},"completed":${completed},"claimable":${claimable},"claimed":${claimed},"period_key":${JSON.stringify(period_key)},${base.tail}`;
}

/** `key`: the mission's current period key (periodKey at `now` in the club's zone). */
function missionView(base: MissionBase, mission: MissionConfig, missions: Record<string, MissionState>, key: string): MyMission {
  const stored = missions[mission.id];
  const current = stored?.periodKey === key ? stored : { progress: 0, completed: false, claimed: false };
  const { goal, reward } = base;
  return {
    id: mission.id,
    title: mission.title,
    description: mission.description ?? null,
    illustration: mission.illustration,
    event: mission.event,
    period: mission.period,
    goal,
    progress: current.progress,
    completed: current.completed,
    claimable: mission.claim === "manual" && current.completed && !current.claimed,
    claimed: current.claimed,
    period_key: key,
    reward,
    starts_at: mission.startsAt ?? null,
    ends_at: mission.endsAt ?? null,
  };
}

/** The missions' current period keys (by mission id), and the (ids, period keys) read for them. */
interface Asked {
  keys: string;
  currentKey: Map<string, string>;
  asked: MissionsAsked;
}
const lastAsked = new WeakMap<ClubConfig, Asked>();

/**
 * What the list asks of the database at `now`: the same object while the
 * configuration's period keys stay (a day, for daily missions), its arrays
 * frozen so that their statement parameters are made once (db/hot/sqlite.ts).
 */
function missionsAsked(config: ClubConfig, now: Date, timeZone: string): Asked {
  const periodKeys = config.missions.map((mission) => periodKey(mission.period, now, timeZone));
  const keys = periodKeys.join("\u0000");
  let asked = lastAsked.get(config);
  if (asked?.keys !== keys) {
    const currentKey = new Map(config.missions.map((mission, at) => [mission.id, periodKeys[at]]));
    const ids = Object.freeze([...currentKey.keys()]);
    const distinct = Object.freeze([...new Set(periodKeys)]);
    const pairs = Object.freeze([...currentKey].flat());
    asked = { keys, currentKey, asked: { ids, periodKeys: distinct, pairs } };
    lastAsked.set(config, asked);
  }
  return asked;
}

/** GET /v1/me/missions: the listed missions in their current period. */
export async function listMyMissions(db: Database, scope: Scope, externalId: string, now: Date): Promise<{ data: MyMission[] }> {
  const published = publishedConfigNow(db, scope);
  const { config } = published instanceof Promise ? await published : published;
  const timeZone = clubTimeZone(config);
  // The participant's tags and its progress in the missions' current periods: one statement.
  const { currentKey, asked } = missionsAsked(config, now, timeZone);
  const found = readParticipantMissions(db, scope, externalId, asked);
  const read = found instanceof Promise ? await found : found;
  const missions: Record<string, MissionState> = {};
  for (const row of read.missions) {
    if (currentKey.get(row.missionId) === row.periodKey)
      missions[row.missionId] = { periodKey: row.periodKey, progress: row.progress, completed: row.completed, claimed: row.claimed };
  }
  const data: MyMission[] = [];
  let text = "";
  for (const mission of listedMissions(config, listingState(read.tags, missions), now, timeZone)) {
    const base = missionBase(config, mission);
    const view = missionView(base, mission, missions, currentKey.get(mission.id)!);
    text += `${data.length > 0 ? "," : ""}${missionText(base, view)}`;
    data.push(view);
  }
  // The answer's text spliced from each mission's parts made once (cache/json-text.ts).
  return { data: withJsonText(data, `[${text}]`) };
}
