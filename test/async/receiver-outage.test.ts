import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, afterEach, beforeAll, expect, it } from "vitest";
import { verifyWebhook } from "../../sdk-node/src/webhooks.js";
import { sleep, waitFor } from "../jobs/support/wait.js";
import { ok, type ClubClient } from "./support/client.js";
import { shiftableClock } from "./support/clock.js";
import { Endpoints, noticesOf, waitForNotices, withoutTests, type ConnectedEndpoint } from "./support/endpoints.js";
import { describeEachStack, startInProcessStack, type InProcessStack } from "./support/stack.js";
import { CONNECTION_FAILURE, expectContractNotice } from "./support/webhooks.js";

/**
 * Nothing is lost when the client's endpoint is down or slow: sendings wait
 * on the seed's schedule (1 min, then 5 min, …) and go out when due, the
 * 10-second answer limit is applied, and a secret rotated meanwhile signs the
 * retries. The stack's clock is moved forward instead of waiting minutes.
 */

const MINUTE = 60_000;

/** A first deposit: four notices for an endpoint on the default subscription plus level.up and participant.created. */
const firstDeposit = (participant: string) => ({ participant, type: "deposit.confirmed", id: `dep-${participant}`, amount: 500, currency: "BRL" });
const EVENTS = ["reward.*", "participant.created", "level.up"];
const EXPECTED_TYPES = ["level.up", "participant.created", "reward.delivery_requested", "reward.granted", "reward.granted"];

describeEachStack("webhooks when the receiver is down or slow", (kind) => {
  const clock = shiftableClock();
  const endpoints = new Endpoints(clock);
  let stack: InProcessStack;
  let club: ClubClient;

  beforeAll(async () => {
    stack = await startInProcessStack(kind, { clock });
  });
  afterEach(() => endpoints.stopAll());
  afterAll(() => stack?.close());

  const sendings = async (endpoint: ConnectedEndpoint, status?: string) => {
    const query = status ? `?status=${status}&limit=100` : "?limit=100";
    return (await ok(club.call("GET", `/v1/webhook_endpoints/${endpoint.id}/sendings${query}`))).data as any[];
  };
  /** Waits until the endpoint's sendings other than webhook.test number `count` and all made `attempts` attempts. */
  const waitForAttempts = async (endpoint: ConnectedEndpoint, count: number, attempts: number) => {
    await waitFor(`${count} sendings with ${attempts} attempts`, async () => {
      const all = (await sendings(endpoint)).filter((sending) => sending.event_type !== "webhook.test");
      await sleep(100);
      return all.length === count && all.every((sending) => sending.attempts === attempts);
    });
    return (await sendings(endpoint)).filter((sending) => sending.event_type !== "webhook.test");
  };

  /**
   * The next attempt is `delay` after the last one, which started before the sending was updated: on a loaded
   * machine seconds may pass in between, and the schedule's steps are minutes apart, so 10 s of slack still
   * tells them apart.
   */
  const expectDelay = (sending: { next_attempt_at: string; updated_at: string }, delay: number) => {
    const gap = Date.parse(sending.next_attempt_at) - Date.parse(sending.updated_at);
    expect(gap).toBeLessThanOrEqual(delay);
    expect(gap).toBeGreaterThan(delay - 10_000);
  };

  it("retries after 1 minute and then 5 minutes while the receiver is down, and delivers every notice once it is back", async () => {
    club = await stack.newClub();
    const endpoint = await endpoints.connect(club, EVENTS);
    const port = endpoint.receiver.port;
    await endpoint.receiver.stop();

    await ok(club.call("POST", "/v1/events", { body: firstDeposit("jogador_fora_do_ar") }));
    const firstTry = await waitForAttempts(endpoint, EXPECTED_TYPES.length, 1);
    for (const sending of firstTry) {
      // A connection-level failure is recorded; which one depends on how the socket died under load (refused, reset, ...).
      expect(sending).toMatchObject({ status: "pending", last_error: expect.stringMatching(CONNECTION_FAILURE), last_status_code: null });
      expectDelay(sending, 1 * MINUTE);
    }

    clock.advance(MINUTE + 1_000);
    const secondTry = await waitForAttempts(endpoint, EXPECTED_TYPES.length, 2);
    for (const sending of secondTry) expectDelay(sending, 5 * MINUTE);
    // Four minutes on, nothing is due yet.
    clock.advance(4 * MINUTE);
    await sleep(2_500);
    expect((await sendings(endpoint)).filter((s) => s.event_type !== "webhook.test").map((s) => s.attempts)).toEqual(secondTry.map(() => 2));

    const receiver = await endpoints.receiver(endpoint.secret, port);
    clock.advance(MINUTE + 1_000);
    await waitForNotices(receiver, "every notice after the outage", (all) => withoutTests(all).length === EXPECTED_TYPES.length);
    const notices = withoutTests(noticesOf(receiver));
    for (const notice of notices) expectContractNotice(notice, club);
    expect(notices.map((notice) => notice.envelope.type).sort()).toEqual(EXPECTED_TYPES);
    // The notices are the recorded sendings: their envelope ids and X-Clube-Delivery.
    expect(notices.map((notice) => [notice.deliveryId, notice.envelope.id]).sort()).toEqual(secondTry.map((s) => [s.id, s.event_id]).sort());
    const done = await waitForAttempts(endpoint, EXPECTED_TYPES.length, 3);
    expect(done.map((sending) => sending.status)).toEqual(done.map(() => "succeeded"));
  });

  it("gives up after the 9th attempt (1 min, 5 min, 30 min, 2 h, 12 h, then 3 × 24 h), warns the staff, and a resend delivers the same envelope", async () => {
    club = await stack.newClub();
    const endpoint = await endpoints.connect(club, ["participant.created"]);
    const port = endpoint.receiver.port;
    await endpoint.receiver.stop();
    await ok(club.call("POST", "/v1/participants", { body: { external_id: "jogador_sumido", display_name: "Caio S." } }));
    await waitForAttempts(endpoint, 1, 1);
    const schedule = [1 * MINUTE, 5 * MINUTE, 30 * MINUTE, 120 * MINUTE, 720 * MINUTE, 1440 * MINUTE, 1440 * MINUTE, 1440 * MINUTE];
    for (const [i, delay] of schedule.entries()) {
      const [pending] = await waitForAttempts(endpoint, 1, i + 1);
      expect(pending.status).toBe("pending");
      expectDelay(pending, delay);
      clock.advance(delay + 1_000);
      await waitForAttempts(endpoint, 1, i + 2);
    }
    const [failed] = await waitForAttempts(endpoint, 1, 9);
    expect(failed).toMatchObject({
      status: "failed",
      attempts: 9,
      last_error: expect.stringMatching(CONNECTION_FAILURE),
      last_status_code: null,
      next_attempt_at: null,
    });
    const warnings = (await ok(club.call("GET", "/v1/warnings?kind=webhook_failed"))).data;
    // One warning for this sending (the endpoint's webhook.test sending may have failed too and has its own).
    expect(warnings.filter((warning: { subject_id: string }) => warning.subject_id === failed.id)).toEqual([
      expect.objectContaining({ kind: "webhook_failed", subject_id: failed.id, message: expect.stringContaining("participant.created") }),
    ]);

    const receiver = await endpoints.receiver(endpoint.secret, port);
    const resent = await ok(club.call("POST", `/v1/webhook_sendings/${failed.id}/resend`));
    expect(resent).toMatchObject({ id: failed.id, status: "pending", attempts: 0 });
    await waitForNotices(receiver, "the resent notice", (all) => withoutTests(all).length === 1);
    const [notice] = withoutTests(noticesOf(receiver));
    expectContractNotice(notice, club);
    expect([notice.deliveryId, notice.envelope.id]).toEqual([failed.id, failed.event_id]);
    const [succeeded] = await waitForAttempts(endpoint, 1, 1);
    expect(succeeded.status).toBe("succeeded");
  }, 90_000);

  it("signs a retry scheduled before a secret rotation with the new secret only", async () => {
    club = await stack.newClub();
    const endpoint = await endpoints.connect(club, ["participant.created"]);
    const port = endpoint.receiver.port;
    await endpoint.receiver.stop();
    await ok(club.call("POST", "/v1/participants", { body: { external_id: "jogadora_rotacao", display_name: "Bia R." } }));
    await waitForAttempts(endpoint, 1, 1);

    // No overlap: the old secret stops at once (the default 24-hour overlap is tested in webhook-endpoints.test.ts).
    const rotated = club.call("POST", `/v1/webhook_endpoints/${endpoint.id}/rotate_secret`, { body: { expire_old_after_seconds: 0 } });
    const { secret } = await ok(rotated);
    // A receiver still holding the old secret: it must refuse the retry.
    const stale = await endpoints.receiver(endpoint.secret, port);
    clock.advance(MINUTE + 1_000);
    await waitForNotices(stale, "the retry", (all) => withoutTests(all).length === 1);
    const [retry] = noticesOf(stale, "participant.created");
    expect(retry.request.signatureValid).toBe(false);
    expect(verifyWebhook(retry.request.body, String(retry.request.headers["x-clube-signature"]), secret, { now: clock.now() })).toMatchObject({
      type: "participant.created",
      data: { participant: { external_id: "jogadora_rotacao" }, display_name: "Bia R." },
    });
  });

  it("counts an answer within the 10-second limit and cuts one that takes longer, retrying it", async () => {
    club = await stack.newClub();
    // 8 s: well within the limit even when this process (server and endpoint alike) is descheduled for a while.
    const patient = await slowEndpoint(8_000);
    const hanging = await slowEndpoint(null);
    try {
      const register = async (url: string) =>
        (await ok(club.call("POST", "/v1/webhook_endpoints", { body: { url, events: ["participant.created"] } }), 201)).id as string;
      const answeredId = await register(patient.url);
      const cutId = await register(hanging.url);
      const sendingOf = async (endpointId: string) => {
        const all = (await ok(club.call("GET", `/v1/webhook_endpoints/${endpointId}/sendings?limit=100`))).data as any[];
        return all.find((sending) => sending.event_type === "participant.created");
      };

      const started = Date.now();
      await ok(club.call("POST", "/v1/participants", { body: { external_id: "jogador_lento" } }));
      await waitFor(
        "both attempts recorded",
        async () => {
          const [answered, cut] = [await sendingOf(answeredId), await sendingOf(cutId)];
          await sleep(200);
          return answered?.attempts === 1 && cut?.attempts === 1;
        },
        30_000,
      );
      expect(Date.now() - started).toBeGreaterThanOrEqual(8_000);
      expect(await sendingOf(answeredId)).toMatchObject({ status: "succeeded", attempts: 1, last_status_code: 200, last_error: null });
      expect(await sendingOf(cutId)).toMatchObject({ status: "pending", attempts: 1, last_error: "timeout after 10s", last_status_code: null });
      expect(hanging.requests()).toHaveLength(1);

      clock.advance(MINUTE + 1_000);
      await waitFor("the retry after the timeout", () => hanging.requests().length === 2, 15_000);
      const [first, retry] = hanging.requests();
      expect(retry.body).toBe(first.body);
      expect(retry.delivery).toBe(first.delivery);
    } finally {
      await patient.close();
      await hanging.close();
    }
  }, 60_000);
});

/**
 * An endpoint answering 200 to every request after `delayMs`, or never with
 * null (the shared receiver answers at once or hangs only on request, which
 * webhook.test notices could take).
 */
async function slowEndpoint(delayMs: number | null) {
  const requests: Array<{ body: string; delivery: string }> = [];
  const server: Server = createServer(async (request, response) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    if (request.headers["x-clube-event"] === "webhook.test") return void response.end("ok");
    requests.push({ body: Buffer.concat(chunks).toString("utf8"), delivery: String(request.headers["x-clube-delivery"]) });
    if (delayMs !== null) setTimeout(() => response.end("ok"), delayMs);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`,
    requests: () => requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
