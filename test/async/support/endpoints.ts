import type { Clock } from "../../../server/src/services.js";
import { waitFor } from "../../jobs/support/wait.js";
import { Receiver, type ReceivedRequest } from "../../webhooks/support/receiver.js";
import { ok, type ClubClient } from "./client.js";

/**
 * The club's side of webhooks: endpoints registered through the API, each
 * with a real receiver (test/webhooks/support/receiver.ts) that verifies
 * signatures, and the notices they received.
 */

/** A webhook request as the client's endpoint sees it: the three X-Clube headers and the parsed envelope. */
export interface Notice {
  /** `X-Clube-Event`. */
  event: string;
  /** `X-Clube-Delivery`. */
  deliveryId: string;
  envelope: { id: string; type: string; created_at: string; club_id: string; env: string; data: any };
  request: ReceivedRequest;
}

export function noticesOf(receiver: Receiver, type?: string): Notice[] {
  const all = receiver.requests.map((request) => ({
    event: String(request.headers["x-clube-event"]),
    deliveryId: String(request.headers["x-clube-delivery"]),
    envelope: JSON.parse(request.body),
    request,
  }));
  return type === undefined ? all : all.filter((notice) => notice.envelope.type === type);
}

/** The notices other than the endpoints' own `webhook.test` (which may come twice: see `Endpoints.connect`). */
export function withoutTests(notices: Notice[]): Notice[] {
  return notices.filter((notice) => notice.envelope.type !== "webhook.test");
}

/** Waits until `receiver` holds what `check` looks for (its requests are in memory: polled cheaply). */
export async function waitForNotices(receiver: Receiver, what: string, check: (notices: Notice[]) => boolean, timeoutMs = 45_000): Promise<Notice[]> {
  await waitFor(what, () => check(noticesOf(receiver)), timeoutMs);
  return noticesOf(receiver);
}

export interface ConnectedEndpoint {
  id: string;
  secret: string;
  receiver: Receiver;
}

/**
 * The clients' endpoints of a suite, each with a receiver that verifies
 * signatures against the endpoint's secret and the stack's clock.
 */
export class Endpoints {
  private readonly receivers: Receiver[] = [];

  constructor(private readonly clock: Clock) {}

  /**
   * Registers an endpoint for `events` (the default subscription when empty)
   * and resolves once its `webhook.test` arrived. The secret is only known
   * once the endpoint exists, and the receiver needs it: so the endpoint is
   * created disabled, the receiver started with the secret, and then the
   * endpoint enabled with the receiver's URL (a URL change sends
   * `webhook.test`), so nothing is sent before the receiver listens. (The
   * creation's own `webhook.test` may still arrive: it is dispatched to the
   * endpoints enabled when the relay hands it over, often after the update.)
   */
  async connect(client: ClubClient, events: string[] = []): Promise<ConnectedEndpoint> {
    const created = await ok(
      client.call("POST", "/v1/webhook_endpoints", {
        body: { url: "http://127.0.0.1:9/not-listening-yet", events, enabled: false, description: "Backend de pagamentos (homologação)" },
      }),
      201,
    );
    const receiver = await this.receiver(created.secret);
    await ok(client.call("POST", `/v1/webhook_endpoints/${created.id}`, { body: { url: receiver.url(), enabled: true } }));
    await waitForNotices(receiver, `webhook.test at ${created.id}`, (notices) =>
      notices.some((notice) => notice.envelope.type === "webhook.test" && notice.envelope.data.endpoint_id === created.id),
    );
    return { id: created.id, secret: created.secret, receiver };
  }

  /** A started receiver for `secret` (on `port` when given), stopped by `stopAll`. */
  async receiver(secret: string, port?: number): Promise<Receiver> {
    const receiver = await new Receiver(secret, () => this.clock.now()).start(port);
    this.receivers.push(receiver);
    return receiver;
  }

  async stopAll(): Promise<void> {
    await Promise.all(this.receivers.splice(0).map((receiver) => receiver.stop()));
  }
}
