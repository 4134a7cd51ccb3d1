/**
 * The benchmark's baseline: what the database costs for the same requests
 * with nothing of Clube around it. A bare Koa app with the same JSON body
 * parser, run as its own process by bench/run.ts:
 *
 * - `POST /single`: one event body → one transactional INSERT
 *   (BEGIN; INSERT; COMMIT) of (id, participant, body);
 * - `POST /batch`: `{events: [...]}` → every event in ONE statement
 *   (PostgreSQL: `INSERT … SELECT FROM unnest($1::text[], …)`; SQLite: one
 *   multi-row INSERT in a transaction);
 * - `GET /read/<external_id>`: one indexed SELECT of a participant row (by its
 *   primary key) answered as JSON: the baseline of the participant reads.
 *
 * Settings: `BASELINE_DATABASE` (a `postgres://` URL, else a SQLite file path),
 * `PORT`, `BASELINE_PARTICIPANTS` (rows `bench-0`… made at start, default 2000).
 * Prints `baseline listening on PORT` when ready.
 */
import { bodyParser } from "@koa/bodyparser";
import Koa from "koa";
import { randomBytes } from "node:crypto";

const target = process.env.BASELINE_DATABASE;
if (!target) throw new Error("BASELINE_DATABASE is required");
const port = Number(process.env.PORT ?? 0);
const id = () => randomBytes(12).toString("hex");
const participants = Number(process.env.BASELINE_PARTICIPANTS ?? 2000);
const participantRows = Array.from({ length: participants }, (_, i) => [`bench-${i}`, 100 * i, 1 + (i % 60), JSON.stringify({ coins: i, gems: 0 })]);

/** { single(row), batch(rows) } on the chosen database. */
async function openStore() {
  if (target.startsWith("postgres")) {
    const { default: pg } = await import("pg");
    const pool = new pg.Pool({ connectionString: target, max: 10 });
    await pool.query("CREATE TABLE IF NOT EXISTS bench_baseline (id text PRIMARY KEY, participant text NOT NULL, body jsonb NOT NULL)");
    await pool.query(
      "CREATE TABLE IF NOT EXISTS bench_participants (external_id text PRIMARY KEY, xp bigint NOT NULL, level integer NOT NULL, balances jsonb NOT NULL)",
    );
    await pool.query({
      text: "INSERT INTO bench_participants SELECT * FROM unnest($1::text[], $2::bigint[], $3::int[], $4::jsonb[]) ON CONFLICT DO NOTHING",
      values: [0, 1, 2, 3].map((c) => participantRows.map((row) => row[c])),
    });
    await pool.query("ANALYZE bench_participants");
    return {
      async read(externalId) {
        const { rows } = await pool.query({
          name: "read_one",
          text: "SELECT external_id, xp, level, balances FROM bench_participants WHERE external_id = $1",
          values: [externalId],
        });
        return rows[0];
      },
      async single(row) {
        const client = await pool.connect();
        try {
          await client.query("BEGIN");
          await client.query({
            name: "insert_one",
            text: "INSERT INTO bench_baseline (id, participant, body) VALUES ($1, $2, $3)",
            values: [row.id, row.participant, row.body],
          });
          await client.query("COMMIT");
        } finally {
          client.release();
        }
      },
      async batch(rows) {
        await pool.query({
          name: "insert_many",
          text: "INSERT INTO bench_baseline (id, participant, body) SELECT * FROM unnest($1::text[], $2::text[], $3::jsonb[])",
          values: [rows.map((r) => r.id), rows.map((r) => r.participant), rows.map((r) => r.body)],
        });
      },
    };
  }
  const { default: Database } = await import("libsql");
  const db = new Database(target);
  db.exec("PRAGMA journal_mode = WAL");
  db.exec("CREATE TABLE IF NOT EXISTS bench_baseline (id text PRIMARY KEY, participant text NOT NULL, body text NOT NULL)");
  db.exec("CREATE TABLE IF NOT EXISTS bench_participants (external_id text PRIMARY KEY, xp integer NOT NULL, level integer NOT NULL, balances text NOT NULL)");
  const seed = db.prepare("INSERT OR IGNORE INTO bench_participants VALUES (?, ?, ?, ?)");
  db.transaction(() => participantRows.forEach((row) => seed.run(...row)))();
  const select = db.prepare("SELECT external_id, xp, level, balances FROM bench_participants WHERE external_id = ?");
  const insert = db.prepare("INSERT INTO bench_baseline (id, participant, body) VALUES (?, ?, ?)");
  const one = db.transaction((row) => insert.run(row.id, row.participant, row.body));
  const many = db.transaction((rows) => {
    for (const row of rows) insert.run(row.id, row.participant, row.body);
  });
  return {
    single: async (row) => one(row),
    batch: async (rows) => many(rows),
    read: async (externalId) => {
      const row = select.get(externalId);
      return row && { ...row, balances: JSON.parse(row.balances) };
    },
  };
}

const store = await openStore();
const app = new Koa();
app.use(bodyParser({ enableTypes: ["json"], jsonLimit: "10mb" }));
app.use(async (ctx) => {
  const body = ctx.request.body;
  if (ctx.method === "GET" && ctx.path.startsWith("/read/")) {
    const row = await store.read(decodeURIComponent(ctx.path.slice("/read/".length)));
    if (!row) ctx.status = 404;
    else ctx.body = row;
    return;
  }
  if (ctx.path === "/single") {
    await store.single({ id: id(), participant: body.participant, body: JSON.stringify(body) });
  } else if (ctx.path === "/batch") {
    await store.batch(body.events.map((event) => ({ id: id(), participant: event.participant, body: JSON.stringify(event) })));
  } else {
    ctx.status = 404;
    return;
  }
  ctx.body = { ok: true };
});
const server = app.listen(port, "127.0.0.1", () => process.stdout.write(`baseline listening on ${server.address().port}\n`));
const stop = () => server.close(() => process.exit(0));
process.once("SIGTERM", stop);
process.once("SIGINT", stop);
