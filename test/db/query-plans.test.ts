import { afterAll, beforeAll, expect, it } from "vitest";
import type { SqlEntityManager } from "@mikro-orm/knex";
import type { Database } from "../../server/src/db/orm.js";
import { PENDING_REFERRALS } from "../../server/src/usecases/events.js";
import { PARTICIPANT_IDS, STORED_KEYS } from "../../server/src/usecases/events/queued.js";
import { OWNERS } from "../../server/src/usecases/events/queued-rows.js";
import { CLAIM_POSTGRESQL, CLAIM_SQLITE, COMPLETE_SQLITE } from "../../server/src/jobs/embedded.js";
import { describeEachDatabase, openTestDatabase, type DatabaseKind } from "../support/databases.js";

/*
 * Plan shapes of the event path's scoped reads (db/hot/scoped-reads.ts)
 * under the conditions that made them disastrous, never timings:
 * PostgreSQL with generic plans (`plan_cache_mode = force_generic_plan`, as
 * a named prepared statement gets after five runs) on tables analysed empty
 * then filled (autovacuum off), then analysed with one big club while a new
 * club's rows arrive; SQLite without statistics, then with them (ANALYZE).
 * Each read must probe its one right index by the key, never scan a club's
 * range with the key as a filter.
 */

/** Rows of the big club (the shapes were also checked at 2,000 and 100,000: the bad plans showed at 20,000). */
const ROWS = 20_000;

interface PlannedRead {
  title: string;
  sql: { postgresql: string; sqlite: string };
  keys: string[];
  /** The index each key is probed in, and the column probed. */
  index: { postgresql: string; sqlite: string };
  key: string;
  /** The condition SQLite's plan shows for that index. */
  sqliteCondition: string;
}

const reads: PlannedRead[] = [
  {
    title: "accepted events' participants by external id (queued.ts)",
    sql: PARTICIPANT_IDS, keys: ["ext1", "ext2", "ext3"], key: "external_id",
    index: { postgresql: "participants_club_id_env_external_id_unique", sqlite: "participants_club_id_env_external_id_unique" },
    sqliteCondition: "club_id=? AND env=? AND external_id=?",
  },
  {
    title: "accepted events' stored keys (queued.ts)",
    sql: STORED_KEYS, keys: ["key1", "key2", "key3"], key: "idempotency_key",
    index: { postgresql: "events_idempotency_key_club_id_env_unique", sqlite: "events_idempotency_key_club_id_env_unique" },
    sqliteCondition: "idempotency_key=? AND club_id=? AND env=?",
  },
  {
    title: "queued events' owners by id (queued-rows.ts)",
    sql: OWNERS, keys: ["e1", "e2", "e3"], key: "id",
    index: { postgresql: "events_pkey", sqlite: "sqlite_autoindex_events_1" },
    sqliteCondition: "id=?",
  },
  {
    title: "pending referrals of referred participants (events.ts)",
    sql: PENDING_REFERRALS, keys: ["p1", "p2", "p3"], key: "referred_id",
    index: { postgresql: "referrals_club_id_env_referred_id_unique", sqlite: "referrals_club_id_env_referred_id_unique" },
    sqliteCondition: "club_id=? AND env=? AND referred_id=?",
  },
];

/** `rows` participants of `club` with two events each and a referral each: plain SQL, fast on both dialects. */
function fillStatements(kind: DatabaseKind, club: string, rows: number): string[] {
  const now = kind === "postgresql" ? "now()" : "0";
  const numbers = kind === "postgresql"
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
    // An embedded queue's backlog: every fifth job ready, the others done.
    `insert into jobs (id, queue, payload, status, attempts, run_at, created_at, updated_at)
      select ${id("j")}, 'events', '{}', case when g.n % 5 = 0 then 'ready' else 'done' end, 0, ${now}, ${now}, ${now} from ${numbers(rows)}`,
  ];
}

/** PostgreSQL's plan of `sql` as a named prepared statement gets it (generic or custom), in one session. */
async function postgresPlan(em: SqlEntityManager, sql: string, params: unknown[], mode: "force_generic_plan" | "force_custom_plan"): Promise<string> {
  let n = 0;
  const text = sql.replace(/\?/g, () => `$${++n}`);
  const name = `plan_probe_${++probes}`;
  // knex spreads an array binding into a list: arrays go as PostgreSQL array literals.
  const bound = params.map((param) => (Array.isArray(param) ? `{${param.map((value) => `"${value}"`).join(",")}}` : param));
  return em.transactional(async (trx) => {
    await trx.execute(`set local plan_cache_mode = ${mode}`);
    await trx.execute(`prepare ${name} as ${text}`);
    const rows = await trx.execute<{ "QUERY PLAN": string }[]>(`explain (costs off) execute ${name}(${params.map(() => "?").join(", ")})`, bound);
    await trx.execute(`deallocate ${name}`);
    return rows.map((row) => row["QUERY PLAN"]).join("\n");
  });
}
let probes = 0;

async function sqlitePlan(em: SqlEntityManager, sql: string, params: unknown[]): Promise<string> {
  const rows = await em.execute<{ detail: string }[]>(`explain query plan ${sql}`, params.map((param) => (Array.isArray(param) ? JSON.stringify(param) : param)));
  return rows.map((row) => row.detail).join("\n");
}

describeEachDatabase("query plans of the event path's scoped reads", (kind) => {
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

  const planOf = async (read: PlannedRead, club: string, mode: "force_generic_plan" | "force_custom_plan" = "force_generic_plan") => {
    const params = [club, "live", read.keys.map((key) => (read.key === "external_id" || read.key === "idempotency_key" ? key : `${club}_${key}`))];
    return kind === "postgresql" ? postgresPlan(db.em(), read.sql.postgresql, params, mode) : sqlitePlan(db.em(), read.sql.sqlite, params);
  };

  const expectProbe = (read: PlannedRead, plan: string) => {
    if (kind === "sqlite") {
      expect(plan, plan).toMatch(new RegExp(`SEARCH \\w+ USING (COVERING )?INDEX ${read.index.sqlite} \\(${read.sqliteCondition.replace(/[?()]/g, "\\$&")}\\)`));
      return;
    }
    expect(plan, plan).not.toMatch(/Seq Scan/);
    expect(plan, plan).toMatch(new RegExp(`(using|on) ${read.index.postgresql}\\b`));
    const conditions = plan.split("\n").filter((line) => line.trim().startsWith("Index Cond:"));
    expect(conditions.join("\n"), plan).toContain(`(${read.key})::text`);
    const filters = plan.split("\n").filter((line) => line.trim().startsWith("Filter:"));
    expect(filters.join("\n"), plan).not.toContain(`(${read.key})::text`);
  };

  it("probes each key in its index on stale statistics (tables analysed empty, or none)", async () => {
    for (const read of reads) expectProbe(read, await planOf(read, "big"));
  });

  it("lets the event log (which names received_at) use the partial (club, env, received_at) index", async () => {
    const sql = "select id from events where club_id = ? and env = ? and received_at is not null order by received_at desc, id desc limit 21";
    const plan = kind === "postgresql" ? await postgresPlan(db.em(), sql, ["big", "live"], "force_generic_plan") : await sqlitePlan(db.em(), sql, ["big", "live"]);
    expect(plan, plan).toMatch(/events_club_id_env_received_at_partial_index/);
  });

  if (kind === "postgresql") {
    it("claims embedded jobs from the first ready ones in index order, never reading the whole backlog", async () => {
      const at = new Date();
      const plan = await postgresPlan(db.em(), CLAIM_POSTGRESQL, ["events", at, 10, "events", at, 10, 10, "running", at, at, at, at], "force_custom_plan");
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
    for (const read of reads) {
      expectProbe(read, await planOf(read, "big"));
      expectProbe(read, await planOf(read, "fresh"));
      if (kind === "postgresql") expectProbe(read, await planOf(read, "fresh", "force_custom_plan"));
    }
  });
});
