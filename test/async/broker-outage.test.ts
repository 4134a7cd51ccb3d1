import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { TcpProxy } from "../jobs/support/tcp-proxy.js";
import { sleep, waitFor } from "../jobs/support/wait.js";
import { postgresEnabled } from "../support/databases.js";
import { betBurst, BURST_WEBHOOKS, sendAsync } from "./support/burst.js";
import { shiftableClock } from "./support/clock.js";
import { Endpoints } from "./support/endpoints.js";
import { readEventLog, waitUntilProcessed } from "./support/event-log.js";
import { expectBurstApplied, expectLedgerOncePerEvent } from "./support/exactly-once.js";
import { BROKER_URL } from "./support/rabbit-vhost.js";
import { startInProcessStack, type InProcessStack } from "./support/stack.js";
import { expectBurstWebhooks } from "./support/webhooks.js";

/**
 * "Accepted means it will be processed: a broker outage may delay it, never
 * lose it." The server and its worker reach RabbitMQ through a local TCP
 * proxy, so the broker can vanish for them alone; and the broker itself
 * closes every connection of the stack's vhost. (The embedded stack has no
 * broker; its crash and restart cases are in processes.test.ts.)
 */

const KIND = "postgresql+rabbitmq";

(postgresEnabled ? describe : describe.skip)(`async events when RabbitMQ goes away [${KIND}${postgresEnabled ? "" : ": skipped, CLUBE_TEST_PG=off"}]`, () => {
  const broker = new URL(BROKER_URL);
  const proxy = new TcpProxy(Number(broker.port || 5672), broker.hostname);
  const clock = shiftableClock();
  const endpoints = new Endpoints(clock);
  let stack: InProcessStack;

  beforeAll(async () => {
    await proxy.up();
    stack = await startInProcessStack(KIND, { clock, brokerPort: proxy.port });
  });
  afterEach(() => endpoints.stopAll());
  afterAll(async () => {
    await proxy.up();
    await stack?.close();
    await proxy.goDown();
  });

  it("accepts events while the broker is unreachable and processes every one, once, when it is back", async () => {
    const club = await stack.newClub("Cassino Apagão");
    const endpoint = await endpoints.connect(club, [...BURST_WEBHOOKS]);
    const burst = betBurst({ tag: "apagao", participants: 10, betsEach: 15, stake: 80 });

    await proxy.goDown();
    const ids = await sendAsync(club, burst.events);
    expect(new Set(ids).size).toBe(burst.events.length);
    await sleep(2_000);
    const duringOutage = (await readEventLog(club)).filter((entry) => ids.includes(entry.id));
    expect(duringOutage.map((entry) => entry.status)).toEqual(ids.map(() => "queued"));

    await proxy.up();
    await waitUntilProcessed(club, ids, 90_000);
    await expectBurstApplied(club, burst);
    await expectLedgerOncePerEvent(stack.db, club.clubId, burst, ids);
    await expectBurstWebhooks(endpoint.receiver, club, burst, { repeats: "none" });
  }, 150_000);

  it("loses nothing when the broker closes every connection of the vhost twice in the middle of a burst", async () => {
    const club = await stack.newClub("Cassino Queda");
    const endpoint = await endpoints.connect(club, [...BURST_WEBHOOKS]);
    const burst = betBurst({ tag: "queda", participants: 15, betsEach: 20, stake: 60 });
    const thirds = [burst.events.slice(0, 100), burst.events.slice(100, 200), burst.events.slice(200)];
    const ids = await sendAsync(club, thirds[0]);
    for (const third of thirds.slice(1)) {
      const connectionsBefore = proxy.accepted;
      await stack.resources.vhost!.closeConnections();
      // Sent while the server and the worker reconnect; both are back before the next drop.
      const sending = sendAsync(club, third);
      await waitFor("the server and the worker reconnected", () => proxy.accepted - connectionsBefore >= 2, 30_000);
      ids.push(...(await sending));
    }
    await waitUntilProcessed(club, ids, 90_000);
    await expectBurstApplied(club, burst);
    await expectLedgerOncePerEvent(stack.db, club.clubId, burst, ids);
    // A redelivered webhook message finds its sendings made: the drops cause no repeated request.
    await expectBurstWebhooks(endpoint.receiver, club, burst, { repeats: "none" });
  }, 150_000);
});
