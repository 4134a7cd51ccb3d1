import { afterAll, beforeAll, expect, it } from "vitest";
import type { SqlEntityManager } from "@mikro-orm/knex";
import type { Database } from "../../server/src/db/orm.js";
import type { HotStore } from "../../server/src/db/hot/index.js";
import { byScopedKeys } from "../../server/src/db/hot/scoped-reads.js";
import { MISSIONS_OF_MANY, PROFILES } from "../../server/src/db/hot/participant-reads.js";
import { PENDING_REFERRALS, STORED_KEYS } from "../../server/src/db/events/event-keys.js";
import { FIRED_DEDUPE_KEYS } from "../../server/src/db/evaluation/rule-counters.js";
import { lockByExternalId, lockById, PARTICIPANT_IDS } from "../../server/src/db/participants/locks.js";
import { OWNERS } from "../../server/src/db/events/queued-rows.js";
import { CLAIM_POSTGRESQL, CLAIM_SQLITE, COMPLETE_SQLITE } from "../../server/src/jobs/embedded.js";
import { describeEachDatabase, openTestDatabase, type DatabaseKind } from "../support/databases.js";

/*
 * Plan shapes of the event path's reads by key (db/hot/scoped-reads.ts and
 * the participant locks) and of the participant reads gathered by scope
 * (db/hot/participant-reads.ts), under the conditions that made them
 * disastrous, never timings: PostgreSQL as a named prepared statement gets them (a
 * generic plan, as after five runs, and a custom one) on tables analysed
 * empty then filled (autovacuum off), then analysed with one big club while
 * a new club's rows arrive; SQLite without statistics, then with them
 * (ANALYZE). Each key must be probed in the one index holding it (an Index
 * Cond, never a Filter over a club's range), and nothing else of the table
 * may be scanned.
 */

/** Rows of the big club (the shapes were also checked at 2,000 and 100,000: the bad plans showed at 20,000). */
const ROWS = 20_000;

/** The keys a read is given for `club`: the fill's external ids, idempotency keys, or a club's row ids. */
type Keys = (club: string) => string[];
const externalIds: Keys = () => ["ext3", "ext999", "ext1500"];
const idempotencyKeys: Keys = () => ["key7", "key1234", "key40000"];
const idsOf =
  (prefix: string): Keys =>
  (club) =>
    [3, 7, 1500].map((n) => `${club}_${prefix}${n}`);

/** A statement and its parameters for `club`'s keys. */
type Statement = { postgresql: string; sqlite?: string; params: { postgresql: unknown[]; sqlite: unknown[] } };

interface PlannedRead {
  title: string;
  statement: (club: string) => Promise<Statement>;
  table: string;
  /**
   * PostgreSQL: every scan of the table, each the index probed and a text its
   * Index Cond contains (the key column, `(id)::text = ANY` for a primary-key
   * list); a probe's Filter never names its own key.
   */
  probes: { index: string; cond: string }[];
  /** SQLite (where the read runs there): the index searched and the condition its plan shows. */
  sqlite?: { index: string; condition: string };
}

/** A scoped read's statement (parameters: club, env, keys) for `club`'s keys. */
const scoped =
  (sql: { postgresql: string; sqlite: string }, keys: Keys) =>
  async (club: string): Promise<Statement> => {
    const params = [club, "live", keys(club)];
    return { ...sql, params: { postgresql: params, sqlite: params } };
  };

/** The statement a lock function sends on each dialect, with its parameters. */
const sentBy =
  (lock: (store: HotStore, club: string) => Promise<unknown>) =>
  async (club: string): Promise<Statement> => {
    const sent: Partial<Record<DatabaseKind, { sql: string; params: unknown[] }>> = {};
    for (const dialect of ["postgresql", "sqlite"] as const) {
      // `run`: SQLite's write lock (an UPDATE matching nothing) before the read planned here.
      const store = {
        dialect,
        run: async () => {},
        select: async (sql: Record<DatabaseKind, string>, params: unknown[]) => ((sent[dialect] = { sql: sql[dialect], params }), []),
      };
      await lock(store as unknown as HotStore, club);
    }
    return { postgresql: sent.postgresql!.sql, sqlite: sent.sqlite!.sql, params: { postgresql: sent.postgresql!.params, sqlite: sent.sqlite!.params } };
  };

const EXTERNAL_ID_INDEX = "participants_club_id_env_external_id_unique";
const KEY_INDEX = "events_idempotency_key_club_id_env_unique";

const reads: PlannedRead[] = [
  {
    title: "accepted events' participants by external id (queued.ts)",
    statement: scoped(PARTICIPANT_IDS, externalIds),
    table: "participants",
    probes: [{ index: EXTERNAL_ID_INDEX, cond: "(external_id)::text" }],
    sqlite: { index: EXTERNAL_ID_INDEX, condition: "club_id=? AND env=? AND external_id=?" },
  },
  {
    title: "accepted events' stored keys (queued.ts)",
    statement: scoped(STORED_KEYS, idempotencyKeys),
    table: "events",
    probes: [{ index: KEY_INDEX, cond: "(idempotency_key)::text" }],
    sqlite: { index: KEY_INDEX, condition: "idempotency_key=? AND club_id=? AND env=?" },
  },
  {
    title: "the event path's originals by key (events.ts ORIGINALS: the same probe returning the stored outcome)",
    statement: scoped(
      byScopedKeys({ table: "events", columns: ["id", "idempotency_key", "effects", "participant_id", "type"], key: "idempotency_key" }),
      idempotencyKeys,
    ),
    table: "events",
    probes: [{ index: KEY_INDEX, cond: "(idempotency_key)::text" }],
    sqlite: { index: KEY_INDEX, condition: "idempotency_key=? AND club_id=? AND env=?" },
  },
  {
    title: "queued events' owners by id (db/events/queued-rows.ts)",
    statement: scoped(OWNERS, idsOf("e")),
    table: "events",
    probes: [{ index: "events_pkey", cond: "(id)::text = ANY" }],
    sqlite: { index: "sqlite_autoindex_events_1", condition: "id=?" },
  },
  {
    title: "pending referrals of referred participants (events.ts)",
    statement: scoped(PENDING_REFERRALS, idsOf("p")),
    table: "referrals",
    probes: [{ index: "referrals_club_id_env_referred_id_unique", cond: "(referred_id)::text" }],
    sqlite: { index: "referrals_club_id_env_referred_id_unique", condition: "club_id=? AND env=? AND referred_id=?" },
  },
  {
    // SQLite joins json_each to the primary key (its plan names the table by alias): PostgreSQL's shape only.
    title: "rules' fired dedupe keys by (participant, rule, key) (db/evaluation/rule-counters.ts)",
    // A batch's worth of triples: planned for 1,000 of them, a join hashed the whole table instead of probing.
    statement: async (club) => {
      const numbers = Array.from({ length: 1000 }, (_, i) => i + 1);
      const participants = numbers.map((n) => `${club}_p${n}`);
      const params = [participants, participants.map(() => "bet-xp"), numbers.map((n) => `key${n}`)];
      return { ...FIRED_DEDUPE_KEYS, params: { postgresql: params, sqlite: [JSON.stringify(participants.map((id, i) => [id, "bet-xp", params[2][i]]))] } };
    },
    table: "rule_dedupe_keys",
    probes: [{ index: "rule_dedupe_keys_pkey", cond: "dedupe_key = w.dedupe_key" }],
  },
  {
    // SQLite reads one participant at a time on its read connection (PROFILE): PostgreSQL's shape only.
    title: "the profile and progress reads gathered by scope (db/hot/participant-reads.ts PROFILES)",
    statement: scoped({ postgresql: PROFILES.postgresql, sqlite: "" }, externalIds),
    table: "participants",
    probes: [{ index: EXTERNAL_ID_INDEX, cond: "(external_id)::text" }],
  },
  {
    title: "the missions reads gathered by scope and missions asked (db/hot/participant-reads.ts MISSIONS_OF_MANY)",
    statement: async (club) => {
      const params = [club, "live", ["daily-bets", "weekly-deposit"], ["2026-11-27", "2026-W48"], externalIds(club)];
      return { postgresql: MISSIONS_OF_MANY.postgresql, params: { postgresql: params, sqlite: params } };
    },
    table: "participants",
    probes: [{ index: EXTERNAL_ID_INDEX, cond: "(external_id)::text" }],
  },
  {
    // SQLite reads after taking the database's write lock (see takeSqliteWriteLock).
    title: "participant locks by external id (db/participants/locks.ts): ids probed by key, then locked by the primary key",
    statement: sentBy((store, club) => lockByExternalId(store, { clubId: club, env: "live" }, externalIds(club))),
    table: "participants",
    probes: [
      { index: EXTERNAL_ID_INDEX, cond: "(external_id)::text" },
      { index: "participants_pkey", cond: "(id)::text = ANY" },
    ],
    sqlite: { index: EXTERNAL_ID_INDEX, condition: "club_id=? AND env=? AND external_id=?" },
  },
  {
    title: "participant locks by id (db/participants/locks.ts)",
    statement: sentBy((store, club) => lockById(store, { clubId: club, env: "live" }, idsOf("p")(club))),
    table: "participants",
    probes: [{ index: "participants_pkey", cond: "(id)::text = ANY" }],
    sqlite: { index: "sqlite_autoindex_participants_1", condition: "id=?" },
  },
];

/** `rows` participants of `club` with two events, a referral and five fired rule keys each: plain SQL, fast on both dialects. */
function fillStatements(kind: DatabaseKind, club: string, rows: number): string[] {
  const now = kind === "postgresql" ? "now()" : "0";
  const numbers =
    kind === "postgresql"
      ? (count: number) => `generate_series(1, ${count}) as g(n)`
      : (count: number) => `(with recursive r(n) as (select 1 union all select n + 1 from r where n < ${count}) select n from r) as g`;
  const id = (prefix: string, n = "g.n") => `'${club}_${prefix}' || ${n}`;
  return [
    `insert into participants (id, club_id, env, external_id, tags, flags, xp, level, event_counts, created_at, updated_at)
      select ${id("p")}, '${club}', 'live', 'ext' || g.n, '[]', '{}', 0, 1, '{}', ${now}, ${now} from ${numbers(rows)}`,
    `insert into events (id, club_id, env, participant_id, idempotency_key, type, currency, occurred_at, meta, status, effects, effects_count, received_at)
      select ${id("e")}, '${club}', 'live', ${id("p", `(g.n % ${rows} + 1)`)}, 'key' || g.n, 'purchase', 'BRL', ${now}, '{}', 'processed', '[]', 0, ${now}
      from ${numbers(2 * rows)}`,
    `insert into referrals (id, club_id, env, referrer_id, referred_id, code, status, created_at)
      select ${id("r")}, '${club}', 'live', ${id("p", "(g.n + 1)")}, ${id("p")}, 'code', 'qualified', ${now} from ${numbers(rows)}`,
    // Five fired keys of the rule per participant, as players' bets add up (a probe by participant and rule would read them all).
    `insert into rule_dedupe_keys (rule_id, dedupe_key, participant_id, club_id, env, event_id, fired_at)
      select 'bet-xp', 'key' || g.n, ${id("p", `(g.n % ${rows} + 1)`)}, '${club}', 'live', ${id("e")}, ${now} from ${numbers(5 * rows)}`,
    // An embedded queue's backlog: every fifth job ready, the others done.
    `insert into jobs (id, queue, payload, status, attempts, run_at, created_at, updated_at)
      select ${id("j")}, 'events', '{}', case when g.n % 5 = 0 then 'ready' else 'done' end, 0, ${now}, ${now}, ${now} from ${numbers(rows)}`,
  ];
}

type PlanMode = "force_generic_plan" | "force_custom_plan";

interface PlanNode {
  "Node Type": string;
  "Relation Name"?: string;
  "Index Name"?: string;
  "Index Cond"?: string;
  Filter?: string;
  Plans?: PlanNode[];
}

const nodesOf = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodesOf)];

/** PostgreSQL's plan of `sql` as a named prepared statement gets it (generic or custom), in one session: as text or as its JSON nodes. */
async function postgresPlan(em: SqlEntityManager, sql: string, params: unknown[], mode: PlanMode, format: "text"): Promise<string>;
async function postgresPlan(em: SqlEntityManager, sql: string, params: unknown[], mode: PlanMode, format: "json"): Promise<PlanNode[]>;
async function postgresPlan(em: SqlEntityManager, sql: string, params: unknown[], mode: PlanMode, format: "text" | "json"): Promise<string | PlanNode[]> {
  let n = 0;
  const text = sql.replace(/\?/g, () => `$${++n}`);
  const name = `plan_probe_${++probes}`;
  // knex spreads an array binding into a list: arrays go as PostgreSQL array literals.
  const bound = params.map((param) => (Array.isArray(param) ? `{${param.map((value) => `"${value}"`).join(",")}}` : param));
  return em.transactional(async (trx) => {
    await trx.execute(`set local plan_cache_mode = ${mode}`);
    await trx.execute(`prepare ${name} as ${text}`);
    // EXPLAIN EXECUTE is a utility statement, which takes no bind parameters: its arguments are written as literals.
    const explain = trx.getPlatform().formatQuery(`explain (costs off, format ${format}) execute ${name}(${params.map(() => "?").join(", ")})`, bound);
    const rows = await trx.execute<{ "QUERY PLAN": unknown }[]>(explain);
    await trx.execute(`deallocate ${name}`);
    if (format === "json") return nodesOf((rows[0]["QUERY PLAN"] as { Plan: PlanNode }[])[0].Plan);
    return rows.map((row) => row["QUERY PLAN"]).join("\n");
  });
}
let probes = 0;

async function sqlitePlan(em: SqlEntityManager, sql: string, params: unknown[]): Promise<string> {
  const rows = await em.execute<{ detail: string }[]>(
    `explain query plan ${sql}`,
    params.map((param) => (Array.isArray(param) ? JSON.stringify(param) : param)),
  );
  return rows.map((row) => row.detail).join("\n");
}

/** The scans of `table` in a plan (a bitmap scan counts by its index scan): index name (or node type), Index Cond, Filter. */
function scansOf(nodes: PlanNode[], table: string): { index: string; cond: string; filter: string }[] {
  return nodes
    .filter((node) => node["Relation Name"] === table || node["Index Name"]?.startsWith(`${table}_`))
    .filter((node) => node["Node Type"] !== "Bitmap Heap Scan")
    .map((node) => ({ index: node["Index Name"] ?? node["Node Type"], cond: node["Index Cond"] ?? "", filter: node.Filter ?? "" }));
}

describeEachDatabase("query plans of the reads by key", (kind) => {
  let db: Database;
  let close: () => Promise<void>;
  const execute = async (statements: string[]) => {
    for (const statement of statements) await db.em().getConnection().execute(statement, [], "run");
  };

  beforeAll(async () => {
    ({ db, close } = await openTestDatabase(kind));
    // PostgreSQL: the migrations analysed every table empty; SQLite: no statistics yet.
    await execute(fillStatements(kind, "big", ROWS));
  });
  afterAll(async () => close());

  /** Every read of `club`'s keys probes its index: on PostgreSQL under a generic and a custom plan. */
  const expectProbes = async (club: string) => {
    for (const read of reads) {
      const statement = await read.statement(club);
      if (kind === "sqlite") {
        if (!read.sqlite || !statement.sqlite) continue;
        const plan = await sqlitePlan(db.em(), statement.sqlite, statement.params.sqlite);
        const lines = plan.split("\n").filter((line) => new RegExp(` ${read.table}\\b`).test(line));
        expect(lines, `${read.title}\n${plan}`).toEqual([
          expect.stringMatching(
            new RegExp(`^SEARCH ${read.table} USING (COVERING )?INDEX ${read.sqlite.index} \\(${read.sqlite.condition.replace(/[?()]/g, "\\$&")}\\)`),
          ),
        ]);
        continue;
      }
      for (const mode of ["force_generic_plan", "force_custom_plan"] as const) {
        const scans = scansOf(await postgresPlan(db.em(), statement.postgresql, statement.params.postgresql, mode, "json"), read.table);
        const context = `${read.title}, ${club}, ${mode}: ${JSON.stringify(scans)}`;
        expect(scans.map((scan) => scan.index).sort(), context).toEqual(read.probes.map((probe) => probe.index).sort());
        for (const probe of read.probes) {
          const scan = scans.find((found) => found.index === probe.index);
          expect(scan?.cond, context).toContain(probe.cond);
          // Its key as a Filter would mean a range of the club read and filtered (the lock's external_id recheck on the primary-key scan is meant).
          expect(scan?.filter, context).not.toContain(probe.cond.split(" ")[0]);
        }
      }
    }
  };

  it("probes each key in its index on stale statistics (tables analysed empty, or none)", async () => {
    await expectProbes("big");
  });

  it("lets the event log (which names received_at) use the partial (club, env, received_at) index", async () => {
    const sql = "select id from events where club_id = ? and env = ? and received_at is not null order by received_at desc, id desc limit 21";
    const plan =
      kind === "postgresql" ? await postgresPlan(db.em(), sql, ["big", "live"], "force_generic_plan", "text") : await sqlitePlan(db.em(), sql, ["big", "live"]);
    expect(plan, plan).toMatch(/events_club_id_env_received_at_partial_index/);
  });

  if (kind === "postgresql") {
    it("claims embedded jobs from the first ready ones in index order, never reading the whole backlog", async () => {
      const at = new Date();
      const plan = await postgresPlan(
        db.em(),
        CLAIM_POSTGRESQL,
        ["events", at, 10, "events", at, 10, 10, "running", at, at, at, at],
        "force_custom_plan",
        "text",
      );
      expect(plan, plan).not.toMatch(/BitmapOr|Bitmap Heap Scan on jobs/);
      expect(plan, plan).toMatch(/Index Scan using jobs_queue_status_run_at_index on jobs/);
    });
  }

  if (kind === "sqlite") {
    it("claims embedded jobs from the first ready ones in index order, and re-checks and completes them by id", async () => {
      const claim = await sqlitePlan(db.em(), CLAIM_SQLITE, ["running", 1, 1, "events", 1, 10, "events", 1, 10, 10, 1, 1]);
      expect(claim, claim).not.toMatch(/MULTI-INDEX OR/);
      expect(claim, claim).toMatch(/SEARCH jobs USING INDEX jobs_queue_status_run_at_index \(queue=\? AND status=\? AND run_at<\?\)/);
      expect(claim.split("\n")[0], claim).toMatch(/SEARCH jobs USING INDEX sqlite_autoindex_jobs_1 \(id=\?\)/);
      const complete = await sqlitePlan(db.em(), COMPLETE_SQLITE, [1, [{ id: "big_j5", attempts: 1 }]]);
      expect(complete.split("\n")[0], complete).toMatch(/SEARCH jobs USING INDEX sqlite_autoindex_jobs_1 \(id=\?\)/);
    });
  }

  it("probes each key in its index once analysed, also for a club the statistics have not seen", async () => {
    await execute(["analyze"]);
    await execute(fillStatements(kind, "fresh", ROWS / 4));
    await expectProbes("big");
    await expectProbes("fresh");
  });
});
