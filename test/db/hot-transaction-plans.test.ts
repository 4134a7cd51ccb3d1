import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Database } from "../../server/src/db/orm.js";
import { PAY_STATEMENTS } from "../../server/src/db/hot/redemption-writes.js";
import { hotStore } from "../../server/src/db/hot/index.js";
import { BEGIN, inHotTransaction } from "../../server/src/db/hot/transaction.js";
import { openTestDatabase, postgresEnabled } from "../support/databases.js";

/*
 * The driver's statements in transactions (db/hot/transaction.ts, and the
 * event path's hot store in the ORM's transactions) on a fresh PostgreSQL
 * install: every table analysed empty, as the migrations leave them. A named
 * statement's generic plan is made once, from the table sizes of that
 * moment, and kept as the tables grow; made on empty tables, a whole-table
 * scan would cost nothing and stay (db/hot/pg-pipeline.ts PLANNED_BY_KEY).
 * Inside these transactions the payment's statements must probe each table
 * by key all the same.
 */

interface PlanNode {
  "Node Type": string;
  "Relation Name"?: string;
  "Index Name"?: string;
  "Index Cond"?: string;
  Plans?: PlanNode[];
}
const nodesOf = (node: PlanNode): PlanNode[] => [node, ...(node.Plans ?? []).flatMap(nodesOf)];

/** Parameters of the plain payment (see payPostgresql), then of the claiming one. */
const now = "2026-11-28T00:00:00Z";
const PARTICIPANT = ["club", "live", "player"];
const REST = ["club", "live", "key", 100, now, "coins", 100, now, "coins", "club", "live"];
const PAY = [...PARTICIPANT, ...REST];
const CLAIMING = ["club", "live", "key", ...PARTICIPANT, "club", "live", "key", "Redemptions_create", "fingerprint", now, now, ...REST];

describe.skipIf(!postgresEnabled)("plans of the driver's write transactions on a fresh PostgreSQL install", () => {
  let db: Database;
  let close: () => Promise<void>;

  beforeAll(async () => {
    ({ db, close } = await openTestDatabase("postgresql"));
  });
  afterAll(async () => close?.());

  it("runs its statements without whole-table scans", async () => {
    const setting = await inHotTransaction(db.em(), (store) =>
      store.select<{ enable_seqscan: string }>({ postgresql: "select current_setting('enable_seqscan') as enable_seqscan", sqlite: "" }, []),
    );
    expect(setting).toEqual([{ enable_seqscan: "off" }]);
  });

  it("runs the event path's statements in the ORM's transactions without whole-table scans, from their first", async () => {
    const setting = { postgresql: "select current_setting('enable_seqscan') as enable_seqscan", sqlite: "" };
    const [before, first, second] = await db.em().transactional(async (em) => {
      const asked = await em.execute<{ enable_seqscan: string }[]>(setting.postgresql);
      const store = await hotStore(em);
      return [asked, await store.select<{ enable_seqscan: string }>(setting, []), await store.select<{ enable_seqscan: string }>(setting, [])];
    });
    expect(before).toEqual([{ enable_seqscan: "on" }]);
    expect(first).toEqual([{ enable_seqscan: "off" }]);
    expect(second).toEqual([{ enable_seqscan: "off" }]);
    // Set for the transaction only: the pooled connection goes back as it was.
    expect(await db.em().execute(setting.postgresql)).toEqual([{ enable_seqscan: "on" }]);
  });

  it.each([
    ["claiming the key", PAY_STATEMENTS.claiming, CLAIMING],
    ["under a claimed key", PAY_STATEMENTS.paying, PAY],
  ])("plans the payment %s as probes by key, the tables empty", async (_title, sql, params) => {
    const rows = await db.em().transactional(async (trx) => {
      for (const statement of BEGIN.slice(1)) await trx.execute(statement);
      await trx.execute("set local plan_cache_mode = force_generic_plan");
      let n = 0;
      await trx.execute(`prepare pay_probe as ${sql.replace(/\?/g, () => `$${++n}`)}`);
      const explain = trx.getPlatform().formatQuery(`explain (costs off, format json) execute pay_probe(${params.map(() => "?").join(", ")})`, params);
      const plan = await trx.execute<{ "QUERY PLAN": { Plan: PlanNode }[] }[]>(explain);
      await trx.execute("deallocate pay_probe");
      return plan;
    });
    const nodes = nodesOf(rows[0]["QUERY PLAN"][0].Plan);
    const context = JSON.stringify(nodes.map((node) => [node["Node Type"], node["Relation Name"], node["Index Name"], node["Index Cond"]]));
    expect(
      nodes.filter((node) => node["Node Type"] === "Seq Scan"),
      context,
    ).toEqual([]);
    const probed = nodes.filter((node) => node["Index Name"]).map((node) => node["Index Name"]);
    expect(new Set(probed), context).toEqual(
      new Set([
        "participants_club_id_env_external_id_unique",
        "redemptions_club_id_env_idempotency_key_unique",
        "balances_participant_id_currency_unique",
        "participants_pkey",
        "webhook_endpoints_club_id_env_created_at_index",
      ]),
    );
    for (const node of nodes.filter((found) => found["Index Name"])) expect(node["Index Cond"], context).toBeTruthy();
  });
});
