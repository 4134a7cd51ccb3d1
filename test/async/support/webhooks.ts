import { expect } from "vitest";
import { schemaValidators, type SchemaName } from "../../../generated/validators.js";
import { sleep, waitFor } from "../../jobs/support/wait.js";
import type { Receiver } from "../../webhooks/support/receiver.js";
import { BURST_WEBHOOKS, type Burst } from "./burst.js";
import { noticesOf, waitForNotices, withoutTests, type Notice } from "./endpoints.js";

/** Assertions on what a club's endpoint received, against the contract. */

/** `reward.delivery_requested` → `RewardDeliveryRequestedWebhookEvent`, the component schema of its body. */
function webhookSchemaName(type: string): SchemaName {
  const pascal = type
    .split(/[._]/)
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join("");
  return `${pascal}WebhookEvent` as SchemaName;
}

/**
 * Everything the contract promises about one received webhook: the signature
 * verified by the receiver (seed algorithm, 300 s tolerance) and the rest of
 * `expectContractShape`.
 */
export function expectContractNotice(notice: Notice, club: { clubId: string; env?: "test" | "live" }): void {
  expect(notice.request.signatureValid, `signature of ${notice.envelope.type} ${notice.envelope.id}`).toBe(true);
  expectContractShape(notice, club);
}

/** The headers, the envelope of this club and environment, and the body valid against the event's generated schema. */
export function expectContractShape(notice: Notice, club: { clubId: string; env?: "test" | "live" }): void {
  const { request, envelope } = notice;
  expect(request.headers["content-type"]).toBe("application/json");
  expect(request.headers["x-clube-signature"]).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/);
  expect(notice.event).toBe(envelope.type);
  expect(notice.deliveryId).toMatch(/^whd_[A-Za-z0-9]+$/);
  expect(envelope).toMatchObject({ id: expect.stringMatching(/^evt_[A-Za-z0-9]+$/), club_id: club.clubId, env: club.env ?? "test" });
  const validate = schemaValidators[webhookSchemaName(envelope.type)];
  expect(validate, `a generated schema for ${envelope.type}`).toBeDefined();
  const valid = validate(structuredClone(envelope));
  expect(valid ? [] : validate.errors, `${envelope.type} body against ${webhookSchemaName(envelope.type)}`).toEqual([]);
}

/**
 * Reads one receiver's notices step by step in a scenario: `next` waits for
 * the notices one step causes and checks they are exactly the expected types
 * (in any order: one transaction's notices are sent concurrently). The
 * endpoints' own `webhook.test` notices are left out.
 */
export class NoticeCursor {
  private seen = 0;

  constructor(private readonly receiver: Receiver) {
    this.seen = this.notices().length;
  }

  async next(types: readonly string[], timeoutMs = 45_000): Promise<Notice[]> {
    const what = types.length > 0 ? types.join(", ") : "nothing";
    await waitFor(what, () => this.notices().length - this.seen >= types.length, timeoutMs);
    // A step expected to send nothing gets a moment to show an unexpected notice.
    if (types.length === 0) await sleep(1_000);
    const fresh = this.skip();
    expect(fresh.map((notice) => notice.envelope.type).sort()).toEqual([...types].sort());
    return fresh;
  }

  /** Everything received since the last step, now counted as seen. */
  skip(): Notice[] {
    const fresh = this.notices().slice(this.seen);
    this.seen += fresh.length;
    return fresh;
  }

  private notices(): Notice[] {
    return withoutTests(noticesOf(this.receiver));
  }
}

/**
 * How the sender (server/src/webhooks/sender.ts) records an attempt whose
 * socket failed before any answer: a stopped receiver shows as refused, but on
 * a loaded machine the same outage may surface as a reset or a kept-alive
 * socket closed under the request (undici's UND_ERR_SOCKET, "other side
 * closed"), or as a code the sender has no plain words for. Tests classify the
 * failure as connection-level instead of expecting one wording.
 */
export const CONNECTION_FAILURE = /^(connection refused|connection reset|connection closed by the endpoint|network error: .+)$/;

/** The one notice of `type` among `notices`. */
export function single(notices: readonly Notice[], type: string): Notice {
  const matching = notices.filter((notice) => notice.envelope.type === type);
  expect(matching, `one ${type}`).toHaveLength(1);
  return matching[0];
}

/**
 * Every webhook a burst causes reaches `receiver`, valid and signed: per
 * participant one envelope each of participant.created, level.up and
 * mission.completed. Delivery is at least once, so after a crash a sending
 * may repeat (`repeats: "allowed"`) — but only as an identical copy with the
 * same envelope id and X-Clube-Delivery, which the client deduplicates on.
 */
export async function expectBurstWebhooks(
  receiver: Receiver,
  club: { clubId: string },
  burst: Burst,
  options: { repeats: "none" | "allowed"; timeoutMs?: number },
): Promise<void> {
  const expected = burst.participants.length * BURST_WEBHOOKS.length;
  const envelopes = (notices: Notice[]) => new Set(withoutTests(notices).map((notice) => notice.envelope.id));
  await waitForNotices(receiver, `${expected} burst webhooks`, (all) => envelopes(all).size >= expected, options.timeoutMs ?? 60_000);
  await sleep(1_000); // a surplus notice would show now
  const notices = withoutTests(noticesOf(receiver));
  for (const notice of notices) expectContractNotice(notice, club);

  const byEnvelope = new Map<string, Notice>();
  for (const notice of notices) {
    const first = byEnvelope.get(notice.envelope.id);
    if (first) expect([notice.deliveryId, notice.request.body]).toEqual([first.deliveryId, first.request.body]);
    else byEnvelope.set(notice.envelope.id, notice);
  }
  if (options.repeats === "none") expect(notices.length).toBe(byEnvelope.size);
  const perParticipant = new Map<string, string[]>();
  for (const { envelope } of byEnvelope.values()) {
    const who = envelope.data.participant.external_id as string;
    perParticipant.set(who, [...(perParticipant.get(who) ?? []), envelope.type].sort());
  }
  expect(Object.fromEntries(perParticipant)).toEqual(Object.fromEntries(burst.participants.map((p) => [p, [...BURST_WEBHOOKS].sort()])));
}
