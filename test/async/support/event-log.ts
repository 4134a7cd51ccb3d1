import type { components } from "../../../generated/types.js";
import { sleep } from "../../jobs/support/wait.js";
import { ok, type ClubClient } from "./client.js";

export type EventLogEntry = components["schemas"]["EventLogEntry"];

/** The whole event log of the club's test environment (every page), newest first. */
export async function readEventLog(client: ClubClient): Promise<EventLogEntry[]> {
  const entries: EventLogEntry[] = [];
  for (let after: string | undefined; ;) {
    const query = after ? `?limit=100&starting_after=${after}` : "?limit=100";
    const page = await ok(client.call("GET", `/v1/events${query}`));
    entries.push(...page.data);
    if (!page.has_more) return entries;
    after = page.data[page.data.length - 1].id;
  }
}

/**
 * Polls the event log until every one of `ids` is `processed`, as a client
 * following its async events would; resolves with their entries by id. Fails
 * at once when one of them `failed`. A poll that gets no answer is simply
 * repeated, as a client would: under a backlog the embedded server can stall
 * for seconds (asserted on its own in async-events.test.ts), long enough for
 * an idle keep-alive connection to be reset.
 */
export async function waitUntilProcessed(client: ClubClient, ids: readonly string[], timeoutMs = 60_000): Promise<Map<string, EventLogEntry>> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const log = await readEventLog(client).catch((error: unknown) => {
      if (error instanceof TypeError && Date.now() < deadline) return null; // fetch failed: no answer
      throw error;
    });
    if (log === null) continue;
    const byId = new Map(log.map((entry) => [entry.id, entry]));
    const failed = ids.map((id) => byId.get(id)).filter((entry) => entry?.status === "failed");
    if (failed.length > 0) throw new Error(`events failed: ${JSON.stringify(failed)}`);
    const pending = ids.filter((id) => byId.get(id)?.status !== "processed");
    if (pending.length === 0) return new Map(ids.map((id) => [id, byId.get(id)!]));
    if (Date.now() > deadline) {
      throw new Error(`timed out after ${timeoutMs} ms: ${pending.length} of ${ids.length} events not processed (e.g. ${pending.slice(0, 3).join(", ")})`);
    }
    await sleep(250);
  }
}
