import { knex } from "@mikro-orm/knex";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { HotStore } from "../../server/src/db/hot/index.js";
import { openDatabase, type Database } from "../../server/src/db/orm.js";
import { byScopedKeys } from "../../server/src/db/hot/scoped-reads.js";
import { lockByExternalId, lockById } from "../../server/src/usecases/events/participant-locks.js";
import { createTestDatabase, openTestDatabase, postgresEnabled, type TestDatabase } from "../support/databases.js";

/*
 * Plan shapes (never timings) of the event path's reads by natural key: on
 * PostgreSQL, as prepared statements under a generic and a custom plan, on
 * the statistics that misled the planner before: (a) tables analyzed empty,
 * then filled; (b) a big analyzed table of one club and a new club not in its
 * statistics. Each key must be an Index Cond of the one index holding it.
 */

interface PlanNode {
  "Node Type": string;
  "Relation Name"?: string;
  "Index Name"?: string;
  "Index Cond"?: string;
  Filter?: string;
  Plans?: PlanNode[];
}

function nodesOf(node: PlanNode): PlanNode[] {
  return [node, ...(node.Plans ?? []).flatMap(nodesOf)];
}

/** The scans of `table`: index name (or node type) → its Index Cond. */
function scansOf(nodes: PlanNode[], table: string, indexes: string[]): { index: string; cond: string }[] {
  return nodes
    .filter((node) => node["Relation Name"] === table || (node["Index Name"] !== undefined && indexes.includes(node["Index Name"])))
    .filter((node) => node["Node Type"] !== "Bitmap Heap Scan")
    .map((node) => ({ index: node["Index Name"] ?? node["Node Type"], cond: node["Index Cond"] ?? "" }));
}

const EVENT_INDEXES = ["events_pkey", "events_idempotency_key_club_id_env_unique", "events_club_id_env_received_at_index", "events_participant_id_received_at_index", "events_status_received_at_index"];
const PARTICIPANT_INDEXES = ["participants_pkey", "participants_club_id_env_external_id_unique", "participants_referral_code_partial_unique"];

/** The statement a lock function sends (its PostgreSQL text), with its parameters. */
async function sentBy(lock: (store: HotStore) => Promise<unknown>): Promise<{ sql: string; params: unknown[] }> {
  let sent: { sql: string; params: unknown[] } | undefined;
  const store = { dialect: "postgresql", select: async (sql: { postgresql: string }, params: unknown[]) => ((sent = { sql: sql.postgresql, params }), []) };
  await lock(store as unknown as HotStore);
  return sent!;
}

describe.skipIf(!postgresEnabled)("key probes' plans [postgresql]", () => {
  let target: TestDatabase;
  let sql: ReturnType<typeof knex>;
  let statement = 0;

  /** The plan of `text` (with `?` parameters) prepared and executed with `params` under `mode`. */
  async function planOf(text: string, params: unknown[], mode: "force_generic_plan" | "force_custom_plan"): Promise<PlanNode[]> {
    let n = 0;
    const name = `probe_${++statement}`;
    await sql.raw(`set plan_cache_mode = ${mode}`);
    await sql.raw(`prepare ${name} as ${text.replace(/\?/g, () => `$${++n}`)}`);
    const literal = (value: unknown): string => (Array.isArray(value) ? `array[${value.map(literal).join(",")}]` : `'${String(value).replace(/'/g, "''")}'`);
    const result = await sql.raw(`explain (format json) execute ${name}(${params.map(literal).join(", ")})`);
    await sql.raw(`deallocate ${name}`);
    return nodesOf((result.rows[0]["QUERY PLAN"] as { Plan: PlanNode }[])[0].Plan);
  }

  async function fill(club: string, participants: number, events: number): Promise<void> {
    await sql.raw(`insert into participants (id, club_id, env, external_id, tags, flags, xp, level, event_counts, created_at, updated_at)
      select '${club}_par_' || i, '${club}', 'live', 'player_' || i, '[]', '{}', 0, 1, '{}', now(), now() from generate_series(1, ${participants}) as i`);
    await sql.raw(`insert into events (id, club_id, env, participant_id, idempotency_key, type, currency, occurred_at, meta, status, effects, effects_count, received_at)
      select '${club}_evt_' || i, '${club}', 'live', '${club}_par_' || (i % ${participants} + 1), 'key_' || i, 'bet.placed', 'BRL', now(), '{}', 'processed', '[]', 0, now()
      from generate_series(1, ${events}) as i`);
  }

  /** Every statement's plan for `club`'s keys, under both plan modes. */
  async function expectProbes(club: string): Promise<void> {
    const keys = ["key_7", "key_1234", "key_40000"];
    const externalIds = ["player_3", "player_999", "player_1500"];
    const scope = { clubId: club, env: "live" as const };
    const byKey = byScopedKeys({ table: "events", columns: ["id", "idempotency_key", "effects", "participant_id", "type"], key: "idempotency_key" });
    const byExternalId = byScopedKeys({ table: "participants", columns: ["id", "external_id"], key: "external_id" });
    const lockExternal = await sentBy((store) => lockByExternalId(store, scope, externalIds));
    const lockIds = await sentBy((store) => lockById(store, scope, [`${club}_par_3`, `${club}_par_7`]));
    for (const mode of ["force_generic_plan", "force_custom_plan"] as const) {
      const events = scansOf(await planOf(byKey.postgresql, [club, "live", keys], mode), "events", EVENT_INDEXES);
      expect(events, mode).toEqual([{ index: "events_idempotency_key_club_id_env_unique", cond: expect.stringContaining("idempotency_key") }]);

      const players = scansOf(await planOf(byExternalId.postgresql, [club, "live", externalIds], mode), "participants", PARTICIPANT_INDEXES);
      expect(players, mode).toEqual([{ index: "participants_club_id_env_external_id_unique", cond: expect.stringContaining("external_id") }]);

      const locked = scansOf(await planOf(lockExternal.sql, lockExternal.params, mode), "participants", PARTICIPANT_INDEXES);
      expect(locked, mode).toHaveLength(2);
      expect(locked, mode).toContainEqual({ index: "participants_club_id_env_external_id_unique", cond: expect.stringContaining("external_id") });
      expect(locked, mode).toContainEqual({ index: "participants_pkey", cond: expect.stringContaining("(id)::text = ANY") });

      const byIds = scansOf(await planOf(lockIds.sql, lockIds.params, mode), "participants", PARTICIPANT_INDEXES);
      expect(byIds, mode).toEqual([{ index: "participants_pkey", cond: expect.stringContaining("(id)::text = ANY") }]);
    }
  }

  beforeAll(async () => {
    target = await createTestDatabase("postgresql");
    const db = await openDatabase({ databaseUrl: target.url, dataDir: target.dataDir });
    await db.close();
    sql = knex({ client: "pg", connection: target.url, pool: { min: 1, max: 1 } });
  });
  afterAll(async () => {
    await sql?.destroy();
    await target?.drop();
  });

  it("probes each key by its index on tables analyzed empty, then filled with 50k rows", async () => {
    await sql.raw("analyze events, participants");
    await fill("club_big", 20_000, 50_000);
    await expectProbes("club_big");
  });

  it("probes each key by its index for a new club beside a big analyzed one", async () => {
    await sql.raw("analyze events, participants");
    await fill("club_new", 2_000, 5_000);
    await expectProbes("club_new");
  });
});

describe("key probes' plans [sqlite]", () => {
  let db: Database;
  let close: () => Promise<void>;
  beforeAll(async () => ({ db, close } = await openTestDatabase("sqlite")));
  afterAll(async () => close?.());

  /** EXPLAIN QUERY PLAN's details, e.g. "SEARCH events USING INDEX … (idempotency_key=?)". */
  const planOf = async (text: string, params: unknown[]) =>
    (await db.em().getConnection().execute<{ detail: string }[]>(`explain query plan ${text}`, params)).map((row) => row.detail);

  it("searches events by the key index and participants by the (club, env, external id) one, with statistics or none", async () => {
    const connection = db.em().getConnection();
    await connection.execute(`insert into participants (id, club_id, env, external_id, tags, flags, xp, level, event_counts, created_at, updated_at)
      with recursive n(i) as (select 1 union all select i + 1 from n where i < 2000)
      select 'par_' || i, 'club_big', 'live', 'player_' || i, '[]', '{}', 0, 1, '{}', 0, 0 from n`);
    await connection.execute(`insert into events (id, club_id, env, participant_id, idempotency_key, type, currency, occurred_at, meta, status, effects, effects_count, received_at)
      with recursive n(i) as (select 1 union all select i + 1 from n where i < 20000)
      select 'evt_' || i, 'club_big', 'live', 'par_' || (i % 2000 + 1), 'key_' || i, 'bet.placed', 'BRL', 0, '{}', 'processed', '[]', 0, 0 from n`);
    for (const analyzed of [false, true]) {
      if (analyzed) await connection.execute("analyze");
      const events = await planOf(byScopedKeys({ table: "events", columns: ["id", "idempotency_key"], key: "idempotency_key" }).sqlite, ["club_new", "live", JSON.stringify(["key_7", "key_8"])]);
      expect(events.filter((detail) => / events\b/.test(detail)), `analyzed: ${analyzed}`).toEqual([
        expect.stringMatching(/^SEARCH events USING INDEX events_idempotency_key_club_id_env_unique \(idempotency_key=\? AND club_id=\? AND env=\?\)/),
      ]);
      const players = await planOf(byScopedKeys({ table: "participants", columns: ["id", "external_id"], key: "external_id" }).sqlite, ["club_new", "live", JSON.stringify(["player_3"])]);
      expect(players.filter((detail) => / participants\b/.test(detail)), `analyzed: ${analyzed}`).toEqual([
        expect.stringMatching(/^SEARCH participants USING INDEX participants_club_id_env_external_id_unique \(club_id=\? AND env=\? AND external_id=\?\)/),
      ]);
    }
  });
});
