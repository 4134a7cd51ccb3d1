import { afterEach, expect, it } from "vitest";
import { openDatabase } from "../../server/src/db/orm.js";
import { systemClock } from "../../server/src/services.js";
import { sleep, waitFor } from "../jobs/support/wait.js";
import { betBurst, BURST_WEBHOOKS, sendAsync, type Burst } from "./support/burst.js";
import { ok, type ClubClient } from "./support/client.js";
import { Endpoints, type ConnectedEndpoint } from "./support/endpoints.js";
import { readEventLog, waitUntilProcessed, type EventLogEntry } from "./support/event-log.js";
import { expectBurstApplied, expectLedgerOncePerEvent } from "./support/exactly-once.js";
import { processEnvFor, startServe, startWorker, type ClubeProcess, type ProcessEnv } from "./support/processes.js";
import { createStackResources, usesBroker, type StackResources } from "./support/stack-resources.js";
import { describeEachStack } from "./support/stack.js";
import { expectBurstWebhooks } from "./support/webhooks.js";

/**
 * Crashes and restarts of real `clube` processes with async events in
 * flight: whatever was accepted is processed, once. On RabbitMQ the consumers
 * are `clube worker` processes; on the embedded stack `clube serve` consumes
 * itself (a `clube worker` may join it on the same database file).
 */

/** Jobs a killed embedded consumer had claimed are claimed again once their 60-second lease ends. */
const AFTER_CRASH_MS = 150_000;

describeEachStack("clube processes with async events in flight", (kind) => {
  const endpoints = new Endpoints(systemClock);
  let resources: StackResources | undefined;
  const running: ClubeProcess[] = [];

  afterEach(async () => {
    await Promise.all(running.splice(0).map((process) => process.stop("SIGKILL")));
    await endpoints.stopAll();
    await resources?.release();
    resources = undefined;
  });

  /**
   * A fresh database (and vhost), `clube serve` on it (with one `clube worker`
   * on RabbitMQ, where serve does not consume), and an endpoint for the
   * burst's webhooks.
   */
  async function startStack() {
    resources = await createStackResources(kind);
    const env = await processEnvFor(resources);
    const { process: server, club } = await serve(env);
    const consumer = usesBroker(kind) ? await worker(env) : server;
    const endpoint = await endpoints.connect(club, [...BURST_WEBHOOKS]);
    return { env, server, consumer, club, endpoint };
  }
  async function serve(env: ProcessEnv) {
    const started = await startServe(env);
    running.push(started.process);
    return started;
  }
  async function worker(env: ProcessEnv) {
    const started = await startWorker(env);
    running.push(started);
    return started;
  }
  async function stop(process: ClubeProcess, signal: "SIGTERM" | "SIGKILL") {
    running.splice(running.indexOf(process), 1);
    return process.stop(signal);
  }
  /** Waits until the club's log shows `count` processed bets (the club receives only the burst). */
  async function waitForProcessedBets(club: ClubClient, count: number) {
    await waitFor(`${count} processed bets`, async () => {
      const processed = (await readEventLog(club)).filter((entry) => entry.type === "bet.placed" && entry.status === "processed");
      await sleep(100);
      return processed.length >= count;
    }, 60_000);
  }
  /** The events accepted before `instant` and processed after it: work a stop or crash left to the next process. */
  const carriedOver = (entries: Map<string, EventLogEntry>, instant: number) =>
    [...entries.values()].filter((entry) => Date.parse(entry.received_at) < instant && Date.parse(entry.processed_at!) > instant);
  /** Exactly once, through the API, the ledger and the webhooks. */
  async function expectAllOnce(env: ProcessEnv, club: ClubClient, endpoint: ConnectedEndpoint, burst: Burst, ids: string[], repeats: "none" | "allowed") {
    await expectBurstApplied(club, burst);
    const db = await openDatabase({ databaseUrl: env.DATABASE_URL, dataDir: env.CLUBE_DATA_DIR });
    try {
      await expectLedgerOncePerEvent(db, club.clubId, burst, ids);
    } finally {
      await db.close();
    }
    await expectBurstWebhooks(endpoint.receiver, club, burst, { repeats, timeoutMs: 60_000 });
  }

  /**
   * Sends the burst while `interrupt` stops a process once 30 bets are
   * processed — mid-burst — and starts what replaces it; the client retries
   * what failed meanwhile (same event ids). Every accepted event is then
   * processed once, some of them by the replacement.
   */
  async function burstAcross(club: ClubClient, burst: Burst, interrupt: () => Promise<void>) {
    let sent = false;
    const sending = sendAsync(club, burst.events, { retryFailures: true }).finally(() => (sent = true));
    await waitForProcessedBets(club, 30);
    expect(sent, "the burst is still being sent when the process stops").toBe(false);
    const stoppedAt = Date.now();
    await interrupt();
    const ids = await sending;
    const entries = await waitUntilProcessed(club, ids, AFTER_CRASH_MS);
    expect(carriedOver(entries, stoppedAt).length).toBeGreaterThan(0);
    return ids;
  }

  it(`a consumer (${usesBroker(kind) ? "clube worker" : "clube serve"}) killed with SIGKILL mid-burst: its replacement processes every event, once`, async () => {
    const { env, consumer, club, endpoint } = await startStack();
    const burst = betBurst({ tag: "queda", participants: 15, betsEach: 20, stake: 60 });
    const ids = await burstAcross(club, burst, async () => {
      expect(await stop(consumer, "SIGKILL")).toEqual({ code: null, signal: "SIGKILL" });
      if (usesBroker(kind)) await worker(env);
      else await serve(env);
    });
    // A webhook being sent when the process died may be sent again: identical, with the same envelope id.
    await expectAllOnce(env, club, endpoint, burst, ids, "allowed");
  }, 300_000);

  it(`two consumers on one ${usesBroker(kind) ? "RabbitMQ queue (two clube worker)" : "database queue (clube serve and a clube worker)"}: each event processed once`, async () => {
    const { env, club, endpoint } = await startStack();
    await worker(env);
    const burst = betBurst({ tag: "dupla", participants: 15, betsEach: 20, stake: 60 });
    const ids = await sendAsync(club, burst.events);
    await waitUntilProcessed(club, ids, 120_000);
    await expectAllOnce(env, club, endpoint, burst, ids, "none");
  }, 300_000);

  it("a restart of every process with accepted events still queued: all processed after it, once", async () => {
    const { env, server, consumer, club, endpoint } = await startStack();
    const burst = betBurst({ tag: "reinicio", participants: 15, betsEach: 20, stake: 60 });
    if (!usesBroker(kind)) {
      // A deploy mid-burst: a graceful stop finishes the jobs in hand and leaves the rest queued in the database.
      const ids = await burstAcross(club, burst, async () => {
        expect(await stop(server, "SIGTERM")).toEqual({ code: 0, signal: null });
        await serve(env);
      });
      await expectAllOnce(env, club, endpoint, burst, ids, "none");
      return;
    }
    // No consumer while the burst is accepted: it waits in RabbitMQ (and the outbox) for the restart.
    await stop(consumer, "SIGTERM");
    const accepted = await ok(club.call("POST", "/v1/events/batch", { body: { events: burst.events }, headers: { Prefer: "respond-async" } }), 202);
    const ids: string[] = accepted.event_ids;
    // The server crashes right after answering, its relay possibly mid-pass.
    expect(await stop(server, "SIGKILL")).toEqual({ code: null, signal: "SIGKILL" });
    const stoppedAt = Date.now();
    const { club: restarted } = await serve(env);
    await worker(env);
    expect(restarted.keys.test).toBe(club.keys.test);
    const entries = await waitUntilProcessed(club, ids, AFTER_CRASH_MS);
    expect(carriedOver(entries, stoppedAt)).toHaveLength(ids.length);
    await expectAllOnce(env, club, endpoint, burst, ids, "none");
  }, 300_000);
});
