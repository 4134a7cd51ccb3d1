/**
 * The Node CPU of a batch's write statement alone, replayed in this process:
 * the writes (HotStore.writeAll's argument) of a stored-players batch of 500
 * (the bench's casino mix, as in batch-profile.ts) are captured, then handed
 * ROUNDS times to a PostgreSQL hot store over a client that only encodes the
 * statement as node-postgres would put it on the wire (Parse/Bind/Execute
 * messages of pg-protocol's serializer, each parameter through pg's
 * prepareValue) without sending it. Prints the µs per statement of building
 * the parameters and of encoding the messages, the bytes sent, and the heap
 * bytes allocated per statement. Not a test:
 * `npx tsx bench/micro/pg-write-costs.ts` (ROUNDS, default 400).
 * SERVER_ROUNDS=n (default 0): then runs the captured statement n times on
 * the database, each in a transaction rolled back, and prints the median CPU
 * per run of this process and of its backend (/proc/<pid>/schedstat).
 * SERVER_PARTS=1: then also each write alone, SERVER_ROUNDS times: the
 * backend's CPU and the WAL bytes per table. SERVER_SETUP_SQL: statements run
 * before (e.g. an index dropped to see its share).
 */
import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { SqlEntityManager } from "@mikro-orm/knex";
import { hotStore, type HotStore, type Write } from "../../server/src/db/hot/index.js";
import { postgresHotStore, type PgClient } from "../../server/src/db/hot/postgres.js";
import { ingestBatch } from "../../server/src/usecases/events/ingest.js";
import { PendingWrites } from "../../server/src/usecases/evaluation/pending-writes.js";
import { eventInput, PUBLIC_URL } from "../../test/usecases/fixtures.js";
import { openTestClub } from "../../test/support/club.js";
import { casinoEvent } from "./casino-mix.js";

const ROUNDS = Number(process.env.ROUNDS ?? 400);
const require = createRequire(import.meta.url);
const { serialize } = require("pg-protocol") as { serialize: { parse(q: object): Buffer; bind(c: object): Buffer; execute(c?: object): Buffer } };
const { prepareValue } = require("pg/lib/utils.js") as { prepareValue(value: unknown): unknown };

let captured: Write[] | undefined;
/** Set for the last batch: its writes are captured, not made (the batch fails and rolls back), so they can be replayed. */
let lastBatch = false;
class Captured extends Error {}
const flush = PendingWrites.prototype.flush;
PendingWrites.prototype.flush = async function (this: PendingWrites, em: Parameters<typeof flush>[0]) {
  if (em.getTransactionContext()) {
    const store: HotStore = await hotStore(em);
    const writeAll = store.writeAll;
    store.writeAll = (writes) => {
      // Copies of the row lists: PendingWrites empties its own after the flush.
      captured = writes.map((write) =>
        "insert" in write
          ? { ...write, rows: [...write.rows] }
          : "updateParticipants" in write
            ? { updateParticipants: [...write.updateParticipants] }
            : "spendLots" in write
              ? { spendLots: [...write.spendLots] }
              : write,
      );
      return lastBatch ? Promise.reject(new Captured()) : writeAll(writes);
    };
  }
  return flush.call(this, em);
};

const club = await openTestClub("postgresql");
let writes: Write[];
const SERVER_ROUNDS = Number(process.env.SERVER_ROUNDS ?? 0);
try {
  let next = 0;
  const batch = () => Array.from({ length: 500 }, () => eventInput(casinoEvent(next++, 2000)));
  for (let b = 0; b < 6; b++) await ingestBatch(club.db, club.scope, batch(), { now: new Date(), publicUrl: PUBLIC_URL });
  lastBatch = true;
  await ingestBatch(club.db, club.scope, batch(), { now: new Date(), publicUrl: PUBLIC_URL }).then(
    () => {
      throw new Error("the last batch was meant to fail");
    },
    (err: unknown) => {
      if (!(err instanceof Captured)) throw err;
    },
  );
  writes = captured!;
  if (SERVER_ROUNDS > 0) await onServer(club.db.em());
} finally {
  await club.close();
}

/** The captured writes run on the database SERVER_ROUNDS times, each rolled back: CPU per run here and in the backend. */
async function onServer(em: SqlEntityManager): Promise<void> {
  const { client } = em.getKnex();
  const connection = (await client.acquireConnection()) as PgClient & { processID: number };
  const backendNs = () => Number(readFileSync(`/proc/${connection.processID}/schedstat`, "utf8").split(" ")[0]);
  const store = postgresHotStore(connection, (err) => {
    throw err;
  });
  // SERVER_SETUP_SQL: `;`-separated statements run once before the rounds (e.g. an index dropped, to see its share).
  for (const sql of (process.env.SERVER_SETUP_SQL ?? "").split(";").filter((text) => text.trim())) await connection.query({ text: sql, values: [] });
  const node: number[] = [];
  const server: number[] = [];
  try {
    for (let r = 0; r < SERVER_ROUNDS; r++) {
      await connection.query({ text: "begin", values: [] });
      const serverStart = backendNs();
      const start = process.cpuUsage();
      await store.writeAll(writes);
      const used = process.cpuUsage(start);
      server.push((backendNs() - serverStart) / 1e6);
      node.push((used.user + used.system) / 1000);
      await connection.query({ text: "rollback", values: [] });
    }
  } finally {
    await client.releaseConnection(connection);
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1].toFixed(2);
  if (process.env.SERVER_PARTS) {
    // Each write alone, SERVER_ROUNDS times, each in a transaction rolled back: the backend's CPU per table.
    const acquired = (await client.acquireConnection()) as PgClient & { processID: number };
    const partNs = () => Number(readFileSync(`/proc/${acquired.processID}/schedstat`, "utf8").split(" ")[0]);
    const alone = postgresHotStore(acquired, (err) => {
      throw err;
    });
    try {
      for (const write of writes) {
        const rows =
          "insert" in write
            ? write.rows.length
            : "updateParticipants" in write
              ? write.updateParticipants.length
              : "spendLots" in write
                ? write.spendLots.length
                : 1;
        if (rows === 0) continue;
        const name =
          "insert" in write
            ? `${write.insert.table}${write.upsert ? " (upsert)" : ""}`
            : "updateParticipants" in write
              ? "participants (update)"
              : "lots spent";
        const times: number[] = [];
        const wal: number[] = [];
        const lsn = async () => (await acquired.query({ text: "select pg_current_wal_insert_lsn()::text as l", values: [] })).rows[0] as { l: string };
        const bytesOf = ({ l }: { l: string }) => {
          const [high, low] = l.split("/");
          return parseInt(high, 16) * 2 ** 32 + parseInt(low, 16);
        };
        for (let r = 0; r < SERVER_ROUNDS; r++) {
          await acquired.query({ text: "begin", values: [] });
          const walStart = bytesOf(await lsn());
          const start = partNs();
          await alone.writeAll([write]);
          times.push((partNs() - start) / 1e6);
          wal.push(bytesOf(await lsn()) - walStart);
          await acquired.query({ text: "rollback", values: [] });
        }
        console.log(`  ${name.padEnd(36)} ${String(rows).padStart(4)} rows  backend ${median(times)} ms  WAL ${(Number(median(wal)) / 1024).toFixed(0)} kB`);
      }
    } finally {
      await client.releaseConnection(acquired);
    }
  }
  console.log(`on the server: Node ${median(node)} ms, backend ${median(server)} ms per write statement (median of ${SERVER_ROUNDS})`);
}

let encode = false;
let bytes = 0;
const client: PgClient = {
  query(config) {
    if (encode) {
      bytes =
        serialize.parse({ name: config.name, text: config.text }).length +
        serialize.bind({ statement: config.name, values: config.values, valueMapper: prepareValue }).length +
        serialize.execute().length;
    }
    return Promise.resolve({ rows: [] });
  },
};
const store = postgresHotStore(client, (err) => {
  throw err;
});
const cpuUs = () => {
  const { user, system } = process.cpuUsage();
  return user + system;
};
async function measure(withEncoding: boolean): Promise<{ us: number; heap: number }> {
  encode = withEncoding;
  const samples: number[] = [];
  const heap: number[] = [];
  for (let r = 0; r < ROUNDS; r++) {
    const heapStart = process.memoryUsage().heapUsed;
    const start = cpuUs();
    await store.writeAll(writes);
    samples.push(cpuUs() - start);
    heap.push(process.memoryUsage().heapUsed - heapStart);
  }
  const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1];
  return { us: median(samples), heap: median(heap.filter((h) => h > 0)) };
}
// Warm the JIT on both paths first.
await measure(false);
await measure(true);
const built = await measure(false);
const sent = await measure(true);
console.log(
  `write statement: ${writes.length} writes, ${bytes} B on the wire; build ${built.us} µs, build + encode ${sent.us} µs (median of ${ROUNDS}); heap ≈ ${(built.heap / 1024).toFixed(0)} / ${(sent.heap / 1024).toFixed(0)} KiB per statement`,
);
