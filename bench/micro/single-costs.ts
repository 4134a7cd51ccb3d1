/**
 * Micro-benchmark of single events in this process: EVENTS `ingestEvent`
 * calls of the bench's mix kept CONCURRENCY in flight (group commit gathers
 * them), over players already stored. Prints µs and SQL statements per
 * event. Not a test: run `npx tsx bench/micro/single-costs.ts [sqlite|postgresql]`.
 */
import { ingestBatch, ingestEvent } from "../../server/src/usecases/events/ingest.js";
import type { DatabaseKind } from "../../test/support/databases.js";
import { countPgStatements } from "./pg-queries.js";
import { eventInput, PUBLIC_URL } from "../../test/usecases/fixtures.js";
import { openTestClub } from "../../test/support/club.js";

const EVENTS = 2000;
const CONCURRENCY = 32;
const PLAYERS = 500;
const pg = countPgStatements();

const event = (i: number, phase: string) =>
  eventInput({
    participant: `s-${i % PLAYERS}`,
    type: i % 10 === 0 ? "deposit.confirmed" : "bet.placed",
    id: `${phase}-${i}`,
    amount: i % 10 === 0 ? 50 : "5.50",
    meta: { game_id: `game-${i % 40}`, game_type: "crash" },
  });

const kinds = (process.argv[2] ? [process.argv[2]] : ["sqlite", "postgresql"]) as DatabaseKind[];
for (const kind of kinds) {
  const club = await openTestClub(kind);
  try {
    // The players exist before measuring, as in the bench.
    await ingestBatch(
      club.db,
      club.scope,
      Array.from({ length: PLAYERS }, (_, i) => event(i, "warm")),
      { now: new Date(), publicUrl: PUBLIC_URL },
    );
    pg.count = 0;
    let next = 0;
    const start = process.hrtime.bigint();
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next < EVENTS) {
          const i = next++;
          await ingestEvent(club.db, club.scope, event(i, "one"), { now: new Date(), publicUrl: PUBLIC_URL });
        }
      }),
    );
    const micros = Number(process.hrtime.bigint() - start) / 1e3 / EVENTS;
    console.log(
      `${kind.padEnd(10)} single events c=${CONCURRENCY}: ${micros.toFixed(0)} µs/event (${(1e6 / micros).toFixed(0)} ev/s)${kind === "postgresql" ? `, ${(pg.count / EVENTS).toFixed(2)} statements/event` : ""}`,
    );
  } finally {
    await club.close();
  }
}
