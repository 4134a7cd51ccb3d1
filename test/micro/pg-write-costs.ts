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
 * `npx tsx test/micro/pg-write-costs.ts` (ROUNDS, default 400).
 */
import { createRequire } from "node:module";
import { hotStore, type HotStore, type Write } from "../../server/src/db/hot/index.js";
import { postgresHotStore, type PgClient } from "../../server/src/db/hot/postgres.js";
import { ingestBatch } from "../../server/src/usecases/events.js";
import { PendingWrites } from "../../server/src/usecases/pending-writes.js";
import { eventInput, openClub, PUBLIC_URL } from "../usecases/fixtures.js";
import { casinoEvent } from "./casino-mix.js";

const ROUNDS = Number(process.env.ROUNDS ?? 400);
const require = createRequire(import.meta.url);
const { serialize } = require("pg-protocol") as { serialize: { parse(q: object): Buffer; bind(c: object): Buffer; execute(c?: object): Buffer } };
const { prepareValue } = require("pg/lib/utils.js") as { prepareValue(value: unknown): unknown };

let captured: Write[] | undefined;
const flush = PendingWrites.prototype.flush;
PendingWrites.prototype.flush = async function (this: PendingWrites, em: Parameters<typeof flush>[0]) {
  if (em.getTransactionContext()) {
    const store: HotStore = await hotStore(em);
    const writeAll = store.writeAll;
    store.writeAll = (writes) => {
      // Copies of the row lists: PendingWrites empties its own after the flush.
      captured = writes.map((write) => ("insert" in write ? { ...write, rows: [...write.rows] }
        : "updateParticipants" in write ? { updateParticipants: [...write.updateParticipants] } : { spendLots: [...write.spendLots] }));
      return writeAll(writes);
    };
  }
  return flush.call(this, em);
};

const club = await openClub("postgresql");
let writes: Write[];
try {
  let next = 0;
  const batch = () => Array.from({ length: 500 }, () => eventInput(casinoEvent(next++, 2000)));
  for (let b = 0; b < 6; b++) await ingestBatch(club.db, club.scope, batch(), { now: new Date(), publicUrl: PUBLIC_URL });
  writes = captured!;
} finally {
  await club.close();
}

let encode = false;
let bytes = 0;
const client: PgClient = {
  query(config) {
    if (encode) {
      bytes = serialize.parse({ name: config.name, text: config.text }).length
        + serialize.bind({ statement: config.name, values: config.values, valueMapper: prepareValue }).length + serialize.execute().length;
    }
    return Promise.resolve({ rows: [] });
  },
};
const store = postgresHotStore(client, (err) => { throw err; });
const cpuUs = () => { const { user, system } = process.cpuUsage(); return user + system; };
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
console.log(`write statement: ${writes.length} writes, ${bytes} B on the wire; build ${built.us} µs, build + encode ${sent.us} µs (median of ${ROUNDS}); heap ≈ ${(built.heap / 1024).toFixed(0)} / ${(sent.heap / 1024).toFixed(0)} KiB per statement`);
