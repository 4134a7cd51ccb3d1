import { expect } from "vitest";
import { LedgerEntry } from "../../../server/src/db/entities/index.js";
import type { Database } from "../../../server/src/db/orm.js";
import { mapLimit, type Burst } from "./burst.js";
import { ok, type ClubClient } from "./client.js";

/** What "processed exactly once" means for a burst, checked through the API and in the ledger. */

/** Every participant of the burst holds exactly its bets' XP (GET /v1/participants/{id}): nothing lost, nothing twice. */
export async function expectBurstApplied(client: ClubClient, burst: Burst): Promise<void> {
  const xp = await mapLimit(burst.participants, 8, async (participant) => (await ok(client.call("GET", `/v1/participants/${participant}`))).xp);
  expect(xp).toEqual(burst.participants.map(() => burst.stake * burst.betsEach));
}

/** The club's `bet-xp` ledger (a club that received only this burst's bets) holds exactly one XP row of `stake` per accepted event id. */
export async function expectLedgerOncePerEvent(db: Database, clubId: string, burst: Burst, eventIds: readonly string[]): Promise<void> {
  const rows = await db.em().find(LedgerEntry, { clubId, env: "test", unit: "xp", ruleId: "bet-xp" }, { fields: ["eventId", "delta"] });
  const byEvent = new Map<string, number[]>();
  for (const row of rows) byEvent.set(row.eventId ?? "", [...(byEvent.get(row.eventId ?? "") ?? []), Number(row.delta)]);
  expect(rows).toHaveLength(eventIds.length);
  expect(eventIds.filter((id) => byEvent.get(id)?.length !== 1 || byEvent.get(id)![0] !== burst.stake)).toEqual([]);
}
