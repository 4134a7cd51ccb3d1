/**
 * Micro-benchmark of the participant reads in this process (GET /v1/me,
 * progress, missions: one participant and its balances), 32 reads at a time
 * as the bench's c=32 offers them, variants alternated round by round:
 * - `pool + all`: the pooled connection (knex's acquire; on SQLite the one
 *   connection, queued) and libsql's `all` for the one row (before 4aac2d0);
 * - `reads + first`: withHotReads (SQLite: the read connection at once) and
 *   HotStore.first (libsql's `get`), the whole view row;
 * - `reads + profile`: the same, only the columns the profile and progress show;
 * - `profileReader`: as the profile and progress read (PostgreSQL: the reads
 *   asked for until the check phase in one statement).
 * SQLite also: the durable answers' change mark, the statement on the
 * connection (before b01e98b) against the WAL index's header.
 * Prints CPU µs per read (process.cpuUsage), medians over the rounds. Not a
 * test: `npx tsx bench/micro/participant-read-costs.ts [sqlite|postgresql]`.
 */
import { withHotAutocommit, withHotReads, type HotStore } from "../../server/src/db/hot/index.js";
import { profileReader, readParticipantProfile, readParticipantView } from "../../server/src/db/hot/participant-reads.js";
import { walIndexCounter } from "../../server/src/db/wal-sync.js";
import { upsertParticipant } from "../../server/src/usecases/participants/index.js";
import type { DatabaseKind } from "../../test/support/databases.js";
import { openTestClub } from "../../test/support/club.js";

const PLAYERS = 400;
const AT_ONCE = 32;
const ROUNDS = 15;
const PER_ROUND = 3200;

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

const kinds = (process.argv[2] ? [process.argv[2]] : ["sqlite", "postgresql"]) as DatabaseKind[];
for (const kind of kinds) {
  const club = await openTestClub(kind);
  const { db, scope } = club;
  try {
    for (let i = 0; i < PLAYERS; i++) await upsertParticipant(db, scope, { external_id: `r-${i}`, display_name: `Player ${i}` });
    const player = (i: number) => `r-${i % PLAYERS}`;
    const variants: Record<string, (i: number) => Promise<unknown>> = {
      "pool + all": (i) => withHotAutocommit(db.orm.em, (store) => readParticipantView({ ...store, first: undefined } as HotStore, scope, player(i))),
      "reads + first": (i) => withHotReads(db, (store) => readParticipantView(store, scope, player(i))),
      "reads + profile": (i) => withHotReads(db, (store) => readParticipantProfile(store, scope, player(i))),
      profileReader: async (i) => profileReader(db)(scope, player(i)),
    };
    if (kind === "sqlite") {
      const file = db.orm.config.get("dbName");
      const index = walIndexCounter(`${file}-shm`);
      // As orm.ts ran it before b01e98b: prepared once on the connection knex keeps, called outside the pool.
      const { client } = db.orm.em.getKnex();
      const connection = (await client.acquireConnection()) as { prepare(sql: string): { raw(on: boolean): { get(params: unknown[]): unknown[] } } };
      await client.releaseConnection(connection);
      const mark = connection.prepare("select total_changes() + data_version from pragma_data_version()").raw(true);
      variants["mark: statement"] = async () => Number(mark.get([])[0]);
      variants["mark: WAL index"] = async () => index.changes();
    }
    const cpu: Record<string, number[]> = Object.fromEntries(Object.keys(variants).map((name) => [name, []]));
    for (let round = 0; round < ROUNDS; round++) {
      for (const [name, read] of Object.entries(variants)) {
        const start = process.cpuUsage();
        for (let done = 0; done < PER_ROUND; done += AT_ONCE) await Promise.all(Array.from({ length: AT_ONCE }, (_, k) => read(done + k)));
        const used = process.cpuUsage(start);
        if (round > 0) cpu[name].push((used.user + used.system) / PER_ROUND);
      }
    }
    for (const [name, values] of Object.entries(cpu)) console.log(`${kind.padEnd(10)} ${name.padEnd(16)} ${median(values).toFixed(1)} µs CPU per read`);
  } finally {
    await club.close();
  }
}
