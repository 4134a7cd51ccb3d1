/**
 * Micro-benchmark of the ingestion transaction: batches of 500 events of the
 * bench's casino mix (500 players per batch, out of BATCH_PLAYERS), applied
 * with ingestBatch in this process, one after the other. Prints, per
 * database, the milliseconds (wall and CPU: the machine is shared, CPU time is the steadier figure) and SQL statements per batch, for batches that
 * create their players and for batches of players already stored.
 * Statements are counted at the driver: `pg` queries, libsql statement runs
 * (each row of a per-row prepared statement counts). On PostgreSQL it also
 * prints the server's CPU per batch: the on-CPU time of the backends this
 * process talks to (/proc/<pid>/schedstat), which a loaded machine's waits
 * do not inflate as they do wall times. Not a test: run
 * `npx tsx bench/micro/batch-costs.ts [sqlite|postgresql]`.
 * BATCH_WAL_PAGES=1 (SQLite): the pages the last stored batch wrote to the
 * WAL, by table and index (the WAL is emptied before it; read off the WAL
 * file's frame headers and the dbstat table), and the read/write system
 * calls of the event loop's thread per batch: what a commit writes and syncs
 * grows with these pages.
 * PostgreSQL: BATCH_EXPLAIN=1 (plans with buffers and WAL of the last batch's
 * statements), BATCH_ANALYZE=1, BATCH_TABLE_STATS=1, BATCH_SETUP_SQL,
 * BATCH_BACKENDS_FILE: see where each is read.
 */
import { copyFileSync, openSync, readFileSync, writeSync } from "node:fs";
import { createRequire } from "node:module";
import { ingestBatch } from "../../server/src/usecases/events/ingest.js";
import type { DatabaseKind } from "../../test/support/databases.js";
import { observePgQueries } from "./pg-queries.js";
import { eventInput, PUBLIC_URL } from "../../test/usecases/fixtures.js";
import { openTestClub, type DatabaseClub } from "../../test/support/club.js";
import { casinoEvent } from "./casino-mix.js";

const BATCH_SIZE = 500;
const BATCH_PLAYERS = 2000;
const ROUNDS = Number(process.env.BATCH_ROUNDS ?? 2);

const require = createRequire(import.meta.url);
let statements = 0;
/** The PostgreSQL backends' process ids, and their nanoseconds on CPU so far (0 when not readable: another machine). */
const backends = new Set<number>();
function backendCpuNs(): number {
  let ns = 0;
  for (const pid of backends) {
    try {
      ns += Number(readFileSync(`/proc/${pid}/schedstat`, "utf8").split(" ")[0]);
    } catch {
      // A closed connection, or a server on another machine.
    }
  }
  return ns;
}
// BATCH_EXPLAIN=1: the last batch's PostgreSQL statements are each run first under EXPLAIN (ANALYZE, BUFFERS)
// in a savepoint rolled back (the server's time per plan node), printed.
let explaining = false;
const explained: string[] = [];
observePgQueries((query, self, args) => {
  statements++;
  const backend = (self as { processID?: number }).processID;
  if (backend) backends.add(backend);
  const config = args[0] as string | { text: string; values?: unknown[] };
  if (explaining && typeof config === "object" && /^\s*(with|select|insert|update|delete)\b/i.test(config.text)) {
    const run = (text: string, values?: unknown[]) => query.apply(self, [{ text, values }]) as Promise<{ rows: Record<string, string>[] }>;
    return (async () => {
      await run("savepoint explained");
      const plan = await run(`explain (analyze, buffers, wal) ${config.text}`, config.values);
      await run("rollback to savepoint explained");
      explained.push(`${config.text.replace(/\s+/g, " ").slice(0, 110)}\n${plan.rows.map((row) => row["QUERY PLAN"]).join("\n")}`);
      return query.apply(self, args);
    })();
  }
  const result = query.apply(self, args);
  if (!sqlTimes || !(result instanceof Promise)) return result;
  if (serverTimes && backend) {
    // The backend runs one statement at a time, the client waiting for it: its CPU from send to answer is the statement's.
    const start = BigInt(readFileSync(`/proc/${backend}/schedstat`, "utf8").split(" ")[0]);
    return result.finally(() => record(typeof config === "string" ? config : config.text, start, backend));
  }
  const start = now();
  return result.finally(() => record(typeof config === "string" ? config : config.text, start));
});
// libsql's Statement class, reached through a prepared statement of a throwaway database.
const libsql = require("libsql") as { new (path: string): { prepare(sql: string): object; close(): void }; prototype: { prepare(sql: string): object } };
const probe = new libsql(":memory:");
const statementProto = Object.getPrototypeOf(probe.prepare("select 1")) as Record<string, (...args: unknown[]) => unknown>;
probe.close();
// BATCH_SQL_TIMES=1: the SQLite time spent per statement text, printed at the end; BATCH_SQL_TIMES=cpu: the process's
// CPU time instead of wall time (in-process SQLite only; a loaded machine inflates wall times, not CPU);
// BATCH_SQL_TIMES=server: the PostgreSQL backend's CPU time per statement text (/proc/<pid>/schedstat), all batches.
const sqlTimes = process.env.BATCH_SQL_TIMES ? new Map<string, { ms: number; runs: number }>() : null;
const cpuTimes = process.env.BATCH_SQL_TIMES === "cpu";
const serverTimes = process.env.BATCH_SQL_TIMES === "server";
function now(): bigint {
  if (!cpuTimes) return process.hrtime.bigint();
  const { user, system } = process.cpuUsage();
  return BigInt(user + system) * 1000n;
}
function record(sql: string, start: bigint, backend?: number): void {
  const end = backend ? BigInt(readFileSync(`/proc/${backend}/schedstat`, "utf8").split(" ")[0]) : now();
  const elapsed = Number(end - start) / 1e6;
  const key = sql.replace(/\s+/g, " ").slice(0, 110);
  const entry = sqlTimes!.get(key) ?? { ms: 0, runs: 0 };
  entry.ms += elapsed;
  entry.runs++;
  sqlTimes!.set(key, entry);
}
const sqlOf = new WeakMap<object, string>();
const databaseOf = new WeakMap<object, { prepare(sql: string): { all(params: unknown): unknown[] } }>();
const prepare = libsql.prototype.prepare;
libsql.prototype.prepare = function (this: unknown, sql: string) {
  const stmt = prepare.call(this, sql);
  sqlOf.set(stmt, sql);
  databaseOf.set(stmt, this as never);
  return stmt;
};
// BATCH_EXPLAIN=1 on SQLite: each statement text of the last batch, its plan (EXPLAIN QUERY PLAN) with the first run's parameters.
const sqlitePlans = new Map<string, string>();
// libsql's `all` runs through its own `iterate`: only the outermost call counts (else every read counts, and is timed, twice).
let depth = 0;
for (const method of ["run", "get", "all", "iterate"]) {
  const original = statementProto[method];
  statementProto[method] = function (this: object, ...args: unknown[]) {
    if (depth > 0) return original.apply(this, args);
    statements++;
    const sql = sqlOf.get(this);
    if (explaining && sql && !sqlitePlans.has(sql) && /^\s*(with|select|insert|update|delete)\b/i.test(sql)) {
      const plan = databaseOf.get(this)!.prepare(`explain query plan ${sql}`).all(args[0]) as { id: number; parent: number; detail: string }[];
      const depthOf = new Map<number, number>([[0, 0]]);
      sqlitePlans.set(
        sql,
        plan.map((row) => (depthOf.set(row.id, depthOf.get(row.parent)! + 1), `${"  ".repeat(depthOf.get(row.id)!)}${row.detail}`)).join("\n"),
      );
    }
    if (sqlLog) logStatement(sql ?? "?", args[0]);
    const start = now();
    depth++;
    try {
      // An iterator is drained here, so that its rows are read inside this call.
      const result = method === "iterate" ? [...(original.apply(this, args) as Iterable<unknown>)].values() : original.apply(this, args);
      if (sqlTimes) record(sqlOf.get(this) ?? "?", start);
      return result;
    } finally {
      depth--;
    }
  };
}

// BATCH_SQL_LOG=file (SQLite): the database as the first stored batch finds it copied to file.db, and every statement
// run from then on, with its parameters, written to file, for bench/micro/sqlite-replay.c to run again under a native
// profiler against a SQLite whose internal symbols are known (libsql's binary is stripped).
const SQL_LOG = process.env.BATCH_SQL_LOG;
let sqlLog: number | null = null;
function logStatement(sql: string, params: unknown): void {
  const values = params === undefined ? [] : params;
  if (!Array.isArray(values)) throw new Error(`BATCH_SQL_LOG: named parameters are not replayed (${sql.slice(0, 60)})`);
  const parts: (string | Buffer)[] = [`Q ${Buffer.byteLength(sql)}\n${sql}\n${values.length}\n`];
  for (const value of values) {
    if (value === null || value === undefined) parts.push("n\n");
    else if (typeof value === "boolean") parts.push(`i ${value ? 1 : 0}\n`);
    else if (typeof value === "bigint" || (typeof value === "number" && Number.isSafeInteger(value))) parts.push(`i ${value}\n`);
    else if (typeof value === "number") parts.push(`f ${value}\n`);
    else if (typeof value === "string") parts.push(`t ${Buffer.byteLength(value)}\n${value}\n`);
    else if (value instanceof Uint8Array || value instanceof ArrayBuffer) {
      const bytes = Buffer.from(value as Uint8Array);
      parts.push(`b ${bytes.length}\n`, bytes, "\n");
    } else throw new Error(`BATCH_SQL_LOG: a ${typeof value} parameter`);
  }
  writeSync(sqlLog!, Buffer.concat(parts.map((part) => (typeof part === "string" ? Buffer.from(part) : part))));
}

const WAL_PAGES = process.env.BATCH_WAL_PAGES !== undefined;
/** The read and write system calls of this process's main thread so far (Linux). */
function mainThreadSyscalls(): { reads: number; writes: number } {
  const io = readFileSync(`/proc/self/task/${process.pid}/io`, "utf8");
  return { reads: Number(/syscr: (\d+)/.exec(io)![1]), writes: Number(/syscw: (\d+)/.exec(io)![1]) };
}

/** The nanoseconds on CPU of this process's main thread (Linux): the event loop's share, without the checkpoint worker's. */
function mainThreadCpuNs(): number {
  return Number(readFileSync(`/proc/self/task/${process.pid}/schedstat`, "utf8").split(" ")[0]);
}

/** The WAL's distinct pages by the table or index they belong to, most first. */
async function walPagesByTree(club: DatabaseClub, walFile: string): Promise<[string, number][]> {
  const wal = readFileSync(walFile);
  const pages = new Set<number>();
  // A 32-byte header, then frames of a 24-byte header (the page number first) and the page.
  const pageSize = wal.readUInt32BE(8);
  for (let at = 32; at + 24 + pageSize <= wal.length; at += 24 + pageSize) pages.add(wal.readUInt32BE(at));
  const trees = await club.db.em().getConnection().execute<{ name: string; pageno: number }[]>("select name, pageno from dbstat");
  const treeOf = new Map(trees.map((row) => [row.pageno, row.name]));
  const counts = new Map<string, number>();
  for (const page of pages) counts.set(treeOf.get(page) ?? "(free)", (counts.get(treeOf.get(page) ?? "(free)") ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1]);
}

const kinds = (process.argv[2] ? [process.argv[2]] : ["sqlite", "postgresql"]) as DatabaseKind[];
for (const kind of kinds) {
  const club = await openTestClub(kind);
  try {
    // BATCH_SETUP_SQL: statements (`;`-separated) run once on the fresh database, e.g. an index dropped to see what it costs.
    for (const sql of (process.env.BATCH_SETUP_SQL ?? "").split(";").filter((text) => text.trim())) await club.db.em().getConnection().execute(sql);
    const perBatch = BATCH_PLAYERS / BATCH_SIZE;
    type Figure = { ms: number; cpu: number; mainCpu: number; serverMs: number; statements: number; reads: number; writes: number };
    const figures = { created: [] as Figure[], stored: [] as Figure[] };
    const walFile = kind === "sqlite" ? `${(await club.db.em().getConnection().execute<{ file: string }[]>("PRAGMA database_list"))[0].file}-wal` : "";
    let walPages: [string, number][] = [];
    for (let round = 0; round < ROUNDS; round++) {
      // BATCH_ANALYZE=1: statistics as a worker's table maintenance keeps them (db/table-maintenance.ts) once the players exist.
      if (process.env.BATCH_ANALYZE && round === 1 && kind === "postgresql") await club.db.em().getConnection().execute("analyze");
      // BATCH_BACKENDS_FILE: the backends' process ids written there once the players exist, for a profiler (`perf record -p`).
      if (process.env.BATCH_BACKENDS_FILE && round === 1) (await import("node:fs")).writeFileSync(process.env.BATCH_BACKENDS_FILE, [...backends].join(","));
      if (SQL_LOG && round === 1 && kind === "sqlite") {
        await club.db.em().getConnection().execute("PRAGMA wal_checkpoint(TRUNCATE)");
        copyFileSync(walFile.slice(0, -"-wal".length), `${SQL_LOG}.db`);
        sqlLog = openSync(SQL_LOG, "w");
      }
      for (let b = 0; b < perBatch; b++) {
        const base = (round * perBatch + b) * BATCH_SIZE;
        const events = Array.from({ length: BATCH_SIZE }, (_, j) => eventInput(casinoEvent(base + j, BATCH_PLAYERS)));
        const last = round === ROUNDS - 1 && b === perBatch - 1;
        if (WAL_PAGES && last && walFile) await club.db.em().getConnection().execute("PRAGMA wal_checkpoint(TRUNCATE)");
        statements = 0;
        const syscalls = mainThreadSyscalls();
        explaining = !!process.env.BATCH_EXPLAIN && round === ROUNDS - 1 && b === perBatch - 1;
        const start = process.hrtime.bigint();
        const cpuStart = process.cpuUsage();
        const mainStart = mainThreadCpuNs();
        const serverStart = backendCpuNs();
        await ingestBatch(club.db, club.scope, events, { now: new Date(), publicUrl: PUBLIC_URL });
        const ms = Number(process.hrtime.bigint() - start) / 1e6;
        const cpu = process.cpuUsage(cpuStart);
        const mainCpu = (mainThreadCpuNs() - mainStart) / 1e6;
        const serverMs = (backendCpuNs() - serverStart) / 1e6;
        const after = mainThreadSyscalls();
        (round === 0 ? figures.created : figures.stored).push({
          ms,
          cpu: (cpu.user + cpu.system) / 1000,
          mainCpu,
          serverMs,
          statements,
          reads: after.reads - syscalls.reads,
          writes: after.writes - syscalls.writes,
        });
        if (WAL_PAGES && last && walFile) walPages = await walPagesByTree(club, walFile);
      }
    }
    if (process.env.BATCH_TABLE_STATS && kind === "postgresql") {
      // BATCH_TABLE_STATS=1: rows inserted, updated and updated HOT per table (the counters reach the view a little after the backend goes idle).
      await new Promise((resolve) => setTimeout(resolve, 3000));
      const stats = await club.db
        .em()
        .getConnection()
        .execute<Record<string, unknown>[]>(
          "select relname, n_tup_ins as ins, n_tup_upd as upd, n_tup_hot_upd as hot, pg_relation_size(relid) / 8192 as pages, pg_indexes_size(relid) / 8192 as index_pages from pg_stat_user_tables where n_tup_upd > 0 or n_tup_ins > 1000 order by relname",
        );
      console.log(
        stats.map((row) => `  ${row.relname}: ${row.ins} ins, ${row.upd} upd, ${row.hot} hot, ${row.pages} pages, ${row.index_pages} index pages`).join("\n"),
      );
    }
    // BATCH_SQLITE_COPY=file (SQLite): the database as the batches left it, copied there to study plans offline.
    if (process.env.BATCH_SQLITE_COPY && kind === "sqlite") await club.db.em().getConnection().execute(`vacuum into '${process.env.BATCH_SQLITE_COPY}'`);
    const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
    for (const [label, rows] of Object.entries(figures)) {
      if (rows.length === 0) continue;
      const ms = median(rows.map((row) => row.ms));
      const server =
        kind === "postgresql"
          ? `, server CPU ${median(rows.map((row) => row.serverMs)).toFixed(1)} ms/batch [${rows.map((row) => row.serverMs.toFixed(0)).join(" ")}]`
          : "";
      console.log(
        `${kind.padEnd(10)} players ${label.padEnd(7)}: ${ms.toFixed(0)} ms/batch (${((ms * 1000) / BATCH_SIZE).toFixed(0)} µs/event), CPU ${median(rows.map((row) => row.cpu)).toFixed(0)} ms/batch (main thread ${median(rows.map((row) => row.mainCpu)).toFixed(1)}), ${median(rows.map((row) => row.statements))} statements/batch  [${rows.map((row) => row.ms.toFixed(0)).join(" ")}]${server}`,
      );
      if (WAL_PAGES) console.log(`  main-thread read/write syscalls per batch: ${rows.map((row) => `${row.reads}/${row.writes}`).join(" ")}`);
    }
    if (walPages.length > 0) {
      console.log(`  WAL pages of the last batch: ${walPages.reduce((sum, [, n]) => sum + n, 0)}`);
      for (const [tree, n] of walPages.slice(0, 12)) console.log(`${String(n).padStart(8)}  ${tree}`);
    }
  } finally {
    await club.close();
  }
}
for (const plan of explained) console.log(`\n${plan}`);
for (const [sql, plan] of sqlitePlans) console.log(`\n${sql.replace(/\s+/g, " ").slice(0, 110)}\n${plan}`);
if (sqlTimes)
  for (const [sql, { ms, runs }] of [...sqlTimes].sort((a, b) => b[1].ms - a[1].ms).slice(0, Number(process.env.BATCH_SQL_TOP ?? 15)))
    console.log(`${ms.toFixed(0).padStart(6)} ms ${String(runs).padStart(6)}× ${(ms / runs).toFixed(2).padStart(7)} ms each  ${sql}`);
