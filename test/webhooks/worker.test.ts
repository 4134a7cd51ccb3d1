import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { Delivery, OutboxMessage, StaffWarning, WebhookEndpoint, WebhookSending } from "../../server/src/db/entities/index.js";
import { newId } from "../../server/src/db/ids.js";
import type { Database } from "../../server/src/db/orm.js";
import type { Scope } from "../../server/src/db/scope.js";
import type { Queue } from "../../server/src/jobs/queue.js";
import { startWorker, WEBHOOK_QUEUE, type RunningWorker } from "../../server/src/jobs/worker.js";
import { workerTasks } from "../../server/src/usecases/scheduled/index.js";
import { recordWebhook } from "../../server/src/usecases/webhooks/outbox.js";
import { describeEachDatabase, openTestDatabase } from "../support/databases.js";
import { embeddedFixture, rabbitFixture } from "../jobs/support/fixtures.js";
import { waitFor, sleep } from "../jobs/support/wait.js";
import { Receiver } from "./support/receiver.js";

const secret = "whsec_worker_test";
const scope: Scope = { clubId: "club_cassino", env: "test" };

/** From a committed use-case change to a signed request at the client's endpoint, through the real queue. */
describeEachDatabase("worker end to end", (kind) => {
  describe.each(["embedded", "rabbitmq"] as const)("on the %s queue", (broker) => {
    let db: Database;
    let queue: Queue;
    let teardown: () => Promise<void>;
    let worker: RunningWorker;
    const receiver = new Receiver(secret);
    const oldDeliveryId = newId("dlv");

    beforeAll(async () => {
      if (broker === "embedded") {
        const fixture = embeddedFixture(kind);
        await fixture.setup();
        db = await fixture.database();
        queue = await fixture.open();
        teardown = () => fixture.teardown();
      } else {
        const fixture = rabbitFixture();
        await fixture.setup();
        fixture.track(WEBHOOK_QUEUE);
        queue = await fixture.open();
        const database = await openTestDatabase(kind);
        db = database.db;
        teardown = async () => {
          await fixture.teardown();
          await database.close();
        };
      }
      await receiver.start();
      await db.em().insert(WebhookEndpoint, {
        id: newId("we"),
        ...scope,
        url: receiver.url(),
        events: [],
        description: "staging",
        enabled: true,
        secret,
        createdAt: new Date(),
        updatedAt: new Date(),
        deletedAt: null,
      });
      // Pending for three days when the worker starts: its first delivery scan warns about it.
      await db.em().insert(Delivery, {
        id: oldDeliveryId,
        ...scope,
        participantId: "par_1",
        participantRewardId: "rwd_1",
        rewardCode: "giros-gratis-20",
        status: "pending",
        externalRef: null,
        failReason: null,
        details: null,
        createdAt: new Date(Date.now() - 72 * 3_600_000),
        confirmedAt: null,
        warnedAt: null,
      });
      worker = await startWorker({ db, queue, tasks: workerTasks(db, undefined) });
    });
    afterAll(async () => {
      await worker.stop();
      await receiver.stop();
      await teardown();
    });
    beforeEach(() => {
      receiver.requests.length = 0;
    });

    it("delivers a webhook recorded in a committed transaction, signed, once", async () => {
      const data = { participant: { id: "par_1", external_id: "user_8412" }, reward: { code: "giros-gratis-20" } };
      await db.em().transactional((em) => recordWebhook(em, scope, "reward.delivery_requested", data, new Date()));
      await worker.relay.relayNow();
      await waitFor("the request at the endpoint", () => receiver.requests.length === 1);
      const [request] = receiver.requests;
      expect(request.signatureValid).toBe(true);
      expect(request.headers["x-clube-event"]).toBe("reward.delivery_requested");
      const body = JSON.parse(request.body);
      expect(body).toMatchObject({ type: "reward.delivery_requested", club_id: scope.clubId, env: scope.env, data });
      expect(body.id).toMatch(/^evt_/);
      await waitFor("the sending to be recorded", async () => (await db.em().count(WebhookSending, { eventId: body.id, status: "succeeded" })) === 1);
      await sleep(200);
      expect(receiver.requests).toHaveLength(1);
    });

    it("sends nothing for a transaction that rolled back", async () => {
      const rowsBefore = await db.em().count(OutboxMessage, {});
      const rolledBack = db.em().transactional(async (em) => {
        await recordWebhook(em, scope, "reward.granted", { reward_code: "never" }, new Date());
        throw new Error("the use case failed after recording");
      });
      await expect(rolledBack).rejects.toThrow("the use case failed");
      await worker.relay.relayNow();
      await sleep(300);
      expect(receiver.requests).toEqual([]);
      expect(await db.em().count(OutboxMessage, {})).toBe(rowsBefore);
    });

    it("warns staff about a delivery left pending for 48 hours", async () => {
      await waitFor("the startup scan", async () => (await db.em().count(StaffWarning, { subjectId: oldDeliveryId })) === 1);
      expect(await db.em().findOneOrFail(StaffWarning, { subjectId: oldDeliveryId })).toMatchObject({ kind: "delivery_unconfirmed", ...scope });
    });
  });
});
