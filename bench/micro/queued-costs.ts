/**
 * Micro-benchmark of the async path in this process: EVENTS events of the
 * bench's mix queued (`queueEvents`, one request each, as `Prefer:
 * respond-async` stores them), then all handed to `processQueuedEvent` at
 * once (group commit), as a consumer with that prefetch would. Prints ms per
 * event of each phase and the statements of each. Not a test: run
 * `npx tsx bench/micro/queued-costs.ts [sqlite|postgresql]`.
 */
import { processQueuedEvent, queueEvents } from "../../server/src/usecases/events/ingest.js";
import type { DatabaseKind } from "../../test/support/databases.js";
import { countPgStatements } from "./pg-queries.js";
import { eventInput, PUBLIC_URL } from "../../test/usecases/fixtures.js";
import { openTestClub } from "../../test/support/club.js";

const EVENTS = 400;
const pg = countPgStatements();

const kinds = (process.argv[2] ? [process.argv[2]] : ["sqlite", "postgresql"]) as DatabaseKind[];
for (const kind of kinds) {
  const club = await openTestClub(kind);
  try {
    for (const round of [0, 1]) {
      const inputs = Array.from({ length: EVENTS }, (_, i) =>
        eventInput({ participant: `q-${i % 100}`, type: "bet.placed", id: `q-${round}-${i}`, amount: "5.50", meta: { game_id: "g1", game_type: "crash" } }),
      );
      pg.count = 0;
      let start = process.hrtime.bigint();
      const ids = await Promise.all(inputs.map(async (input) => (await queueEvents(club.db, club.scope, [input], { now: new Date() })).event_ids[0]));
      const queueMs = Number(process.hrtime.bigint() - start) / 1e6;
      const queueStatements = pg.count;
      pg.count = 0;
      start = process.hrtime.bigint();
      await Promise.all(ids.map((id) => processQueuedEvent(club.db, club.scope, id, { now: new Date(), publicUrl: PUBLIC_URL })));
      const processMs = Number(process.hrtime.bigint() - start) / 1e6;
      console.log(
        `${kind.padEnd(10)} round ${round}: queue ${((queueMs * 1000) / EVENTS).toFixed(0)} µs/event (${queueStatements} pg statements), process ${((processMs * 1000) / EVENTS).toFixed(0)} µs/event (${pg.count} pg statements)`,
      );
    }
  } finally {
    await club.close();
  }
}
