import { afterEach, expect, it } from "vitest";
import { Event, OutboxMessage, WebhookSending } from "../../server/src/db/entities/index.js";
import { openDatabase, type Database } from "../../server/src/db/orm.js";
import { systemClock } from "../../server/src/services.js";
import { freePort } from "../e2e/clube-command.js";
import { waitFor } from "../jobs/support/wait.js";
import { betBurst, BURST_WEBHOOKS, mapLimit, sendAsync, sendAsyncBatch, type Burst } from "./support/burst.js";
import { ok, type ClubClient } from "./support/client.js";
import { Endpoints, noticesOf, withoutTests, type ConnectedEndpoint } from "./support/endpoints.js";
import { waitUntilProcessed, type EventLogEntry } from "./support/event-log.js";
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
 *
 * When to strike is decided from the database, read by this process: the
 * embedded server does not answer HTTP while it works through a chain of
 * database calls (see async-events.test.ts, "keeps answering"), so the API
 * cannot say what is queued at the moment it matters.
 */

/** Jobs a killed embedded consumer had claimed are claimed again once their 60-second lease ends. */
const AFTER_CRASH_MS = 150_000;

/**
 * A casino stream whose outcome does not depend on the order events are
 * applied in (every participant's deposits are alike, and so are its bets and
 * its settlements), so one process and several racing ones must end in
 * exactly the same state.
 */
function orderFreeStream(participants: number) {
  const players = Array.from({ length: participants }, (_, p) => `multi_jogador_${p}`);
  const events = players.flatMap((participant, p) => [
    ...Array.from({ length: 2 }, (_, i) => ({
      participant,
      type: "deposit.confirmed",
      id: `${participant}-dep-${i}`,
      amount: 50 + p * 10,
      currency: "BRL",
      meta: { method: "pix" },
    })),
    ...Array.from({ length: 10 }, (_, i) => ({
      participant,
      type: "bet.placed",
      id: `${participant}-bet-${i}`,
      amount: 60 + p,
      currency: "BRL",
      meta: { game_type: "video-slots" },
    })),
    ...Array.from({ length: 3 }, (_, i) => ({
      participant,
      type: "bet.settled",
      id: `${participant}-win-${i}`,
      amount: 15,
      currency: "BRL",
      meta: { game_type: "video-slots" },
    })),
  ]);
  // Interleaved across participants, so the processes contend for the same ones.
  const order = events.map((_, i) => i).sort((a, b) => (a % 15) - (b % 15) || a - b);
  return { players, events: order.map((i) => events[i]) };
}

/** A participant's state as the API shows it, without generated ids and timestamps (which differ between two runs). */
function stateOnly(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(stateOnly);
  if (typeof value === "string") return /^[a-z]+_[0-9A-Za-z]{24}$/.test(value) ? "<id>" : value;
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([key]) => !key.endsWith("_at"))
      .map(([key, inner]) => [key, stateOnly(inner)]),
  );
}

describeEachStack("clube processes with async events in flight", (kind) => {
  const endpoints = new Endpoints(systemClock);
  let resources: StackResources | undefined;
  /** This process's own connection to the stack's database, to watch it. */
  let observer: Database | undefined;
  const running: ClubeProcess[] = [];

  afterEach(async () => {
    try {
      await Promise.all(running.splice(0).map((process) => process.stop("SIGKILL")));
      await endpoints.stopAll();
      await observer?.close();
    } finally {
      observer = undefined;
      await resources?.release();
      resources = undefined;
    }
  });

  /**
   * A fresh database (and vhost), `clube serve` on it (with one `clube worker`
   * on RabbitMQ, where serve does not consume), and an endpoint for the
   * burst's webhooks.
   */
  async function startStack() {
    resources = await createStackResources(kind);
    // Work a killed process had claimed is taken over once its claim ends: 15 s instead of the default 60 s keeps the waits short.
    const env = { ...(await processEnvFor(resources)), CLUBE_LEASE_SECONDS: "15" };
    const { process: server, club } = await serve(env);
    const consumer = usesBroker(kind) ? await worker(env) : server;
    const endpoint = await endpoints.connect(club, [...BURST_WEBHOOKS]);
    observer = await openDatabase({ databaseUrl: env.DATABASE_URL, dataDir: env.CLUBE_DATA_DIR });
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
  /** Waits until the database holds `count` bets of the club in `status`. */
  async function waitForBets(club: ClubClient, status: "queued" | "processed", count: number) {
    await waitFor(
      `${count} ${status} bets`,
      async () => (await observer!.em().count(Event, { clubId: club.clubId, type: "bet.placed", status })) >= count,
      180_000,
    );
  }
  /** The events accepted before `instant` and processed after it: work a stop or crash left to the next process. */
  const carriedOver = (entries: Map<string, EventLogEntry>, instant: number) =>
    [...entries.values()].filter((entry) => Date.parse(entry.received_at) < instant && Date.parse(entry.processed_at!) > instant);
  /**
   * Exactly once, through the API, the ledger and the webhooks. After a crash
   * (`repeats: "allowed"`) a webhook may wait for the lease its dead sender
   * held to run out: a sending claimed for its first attempt is attempted
   * again after the request timeout + the lease (webhooks/dispatch.ts leaseFrom),
   * a job leased by the dead process after the lease (jobs/embedded.ts); the
   * stacks here set CLUBE_LEASE_SECONDS=15. The wait outlasts both with a
   * margin: a webhook has been seen to arrive just before the lease + 1 s.
   */
  async function expectAllOnce(club: ClubClient, endpoint: ConnectedEndpoint, burst: Burst, ids: string[], repeats: "none" | "allowed") {
    await expectBurstApplied(club, burst);
    await expectLedgerOncePerEvent(observer!, club.clubId, burst, ids);
    await expectBurstWebhooks(endpoint.receiver, club, burst, { repeats, timeoutMs: repeats === "allowed" ? 120_000 : 60_000 });
  }

  it(`a consumer (${usesBroker(kind) ? "clube worker" : "clube serve"}) killed with SIGKILL mid-burst: its replacement processes every event, once`, async () => {
    const { env, consumer, club, endpoint } = await startStack();
    const burst = betBurst({ tag: "queda", participants: 15, betsEach: 20, stake: 60 });
    // The client sends again what failed while no server answered (same ids: idempotent).
    const sending = sendAsync(club, burst.events, { retryFailures: true });
    await waitForBets(club, "processed", 30);
    // Killed mid-burst: work remains (whether or not the client has finished sending under this machine's load).
    const processedBeforeKill = await observer!.em().count(Event, { clubId: club.clubId, type: "bet.placed", status: "processed" });
    expect(processedBeforeKill, "the burst is still being processed").toBeLessThan(burst.events.length);
    const killedAt = Date.now();
    expect(await stop(consumer, "SIGKILL")).toEqual({ code: null, signal: "SIGKILL" });
    if (usesBroker(kind)) await worker(env);
    else await serve(env);
    const ids = await sending;
    const entries = await waitUntilProcessed(club, ids, AFTER_CRASH_MS);
    // With RabbitMQ the server went on accepting while no worker ran: the replacement had a backlog.
    if (usesBroker(kind)) expect(carriedOver(entries, killedAt).length).toBeGreaterThan(0);
    // A webhook being sent when the process died may be sent again: identical, with the same envelope id.
    await expectAllOnce(club, endpoint, burst, ids, "allowed");
  }, 300_000);

  it(`two consumers on one ${usesBroker(kind) ? "RabbitMQ queue (two clube worker)" : "database queue (clube serve and a clube worker)"}: each event processed once`, async () => {
    const { env, club, endpoint } = await startStack();
    await worker(env);
    const burst = betBurst({ tag: "dupla", participants: 15, betsEach: 20, stake: 60 });
    const ids = await sendAsync(club, burst.events);
    await waitUntilProcessed(club, ids, 120_000);
    await expectAllOnce(club, endpoint, burst, ids, "none");
  }, 300_000);

  it.skipIf(!usesBroker(kind))(
    "two clube serve and two clube worker end in the same balances, XP, missions and webhooks as one of each",
    async () => {
      const stream = orderFreeStream(6);
      /** Runs the stream through `serves` servers and `workers` workers on a fresh stack; the participants' state and the webhooks sent. */
      async function outcome(serves: number, workers: number) {
        const first = await startStack();
        const env = first.env;
        const clubs = [first.club];
        for (let i = 1; i < serves; i++) {
          const port = await freePort();
          clubs.push((await serve({ ...env, PORT: port, CLUBE_PUBLIC_URL: `http://127.0.0.1:${port}` })).club);
        }
        for (let i = 1; i < workers; i++) await worker(env);
        // Event i through server i mod n: the servers accept, the workers race to apply.
        const parts = clubs.map((_, n) => stream.events.filter((_, i) => i % clubs.length === n));
        const ids = (await Promise.all(parts.map((events, n) => sendAsync(clubs[n], events)))).flat();
        await waitUntilProcessed(first.club, ids, 120_000);
        await waitFor(
          "every webhook sent",
          async () =>
            (await observer!.em().count(OutboxMessage, { relayedAt: null })) === 0 && (await observer!.em().count(WebhookSending, { status: "pending" })) === 0,
          60_000,
        );
        const state = await mapLimit(stream.players, 4, async (player) => ({
          profile: stateOnly(await ok(first.club.call("GET", `/v1/participants/${player}`))),
          progress: stateOnly(await ok(first.club.call("GET", `/v1/participants/${player}/progress`))),
        }));
        const webhooks = withoutTests(noticesOf(first.endpoint.receiver))
          // Which notice for whom; intermediate figures (a balance after some event) depend on the order events met.
          .map(({ envelope: { type, data } }) => `${type} ${data.participant?.external_id ?? data.external_id ?? ""} ${data.level ?? data.mission_id ?? ""}`)
          .sort();
        // The next stack starts from nothing.
        await Promise.all(running.splice(0).map((process) => process.stop("SIGTERM")));
        await endpoints.stopAll();
        await observer?.close();
        observer = undefined;
        await resources?.release();
        resources = undefined;
        return { state, webhooks };
      }

      const single = await outcome(1, 1);
      const several = await outcome(2, 2);
      expect(single.webhooks.length).toBeGreaterThan(stream.players.length);
      expect(several.state).toEqual(single.state);
      expect(several.webhooks).toEqual(single.webhooks);
    },
    300_000,
  );

  it("a restart of every process with accepted events still queued: all processed after it, once", async () => {
    const { env, server, consumer, club, endpoint } = await startStack();
    const burst = betBurst({ tag: "reinicio", participants: 15, betsEach: 20, stake: 60 });
    if (usesBroker(kind)) {
      // No consumer while the batch is accepted: it waits in RabbitMQ (and the outbox) for the restart.
      await stop(consumer, "SIGTERM");
      await sendAsyncBatch(club, burst.events);
    } else {
      // The embedded server accepts a batch in one go before relaying it: strike in the middle of it.
      void sendAsyncBatch(club, burst.events).catch(() => undefined);
      await waitForBets(club, "queued", 50);
    }
    // The server crashes (on RabbitMQ right after answering, its relay possibly mid-pass).
    const stoppedAt = Date.now();
    expect(await stop(server, "SIGKILL")).toEqual({ code: null, signal: "SIGKILL" });
    const queuedAtCrash = await observer!.em().count(Event, { clubId: club.clubId, type: "bet.placed", status: "queued" });
    expect(queuedAtCrash).toBeGreaterThan(0);

    const { club: restarted } = await serve(env);
    if (usesBroker(kind)) await worker(env);
    expect(restarted.keys.test).toBe(club.keys.test);
    // The client sends the whole batch again: what was accepted keeps its id, the rest is accepted now.
    const ids = await sendAsyncBatch(restarted, burst.events, { retryFailures: true });
    const entries = await waitUntilProcessed(restarted, ids, AFTER_CRASH_MS);
    expect(carriedOver(entries, stoppedAt).length).toBeGreaterThanOrEqual(queuedAtCrash);
    await expectAllOnce(restarted, endpoint, burst, ids, "none");
  }, 300_000);
});
