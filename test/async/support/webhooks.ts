import { expect } from "vitest";
import { schemaValidators, type SchemaName } from "../../../generated/validators.js";
import { sleep, waitFor } from "../../jobs/support/wait.js";
import type { Receiver } from "../../webhooks/support/receiver.js";
import { noticesOf, type Notice } from "./endpoints.js";

/** Assertions on what a club's endpoint received, against the contract. */

/** `reward.delivery_requested` → `RewardDeliveryRequestedWebhookEvent`, the component schema of its body. */
export function webhookSchemaName(type: string): SchemaName {
  const pascal = type
    .split(/[._]/)
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join("");
  return `${pascal}WebhookEvent` as SchemaName;
}

/**
 * Everything the contract promises about one received webhook: the signature
 * verified by the receiver (seed algorithm, 300 s tolerance), the headers,
 * the envelope of this club and environment, and the body valid against the
 * event's generated schema.
 */
export function expectContractNotice(notice: Notice, club: { clubId: string; env?: "test" | "live" }): void {
  const { request, envelope } = notice;
  expect(request.signatureValid, `signature of ${envelope.type} ${envelope.id}`).toBe(true);
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

  async next(types: readonly string[], timeoutMs = 15_000): Promise<Notice[]> {
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
    return noticesOf(this.receiver).filter((notice) => notice.envelope.type !== "webhook.test");
  }
}

/** The one notice of `type` among `notices`. */
export function single(notices: readonly Notice[], type: string): Notice {
  const matching = notices.filter((notice) => notice.envelope.type === type);
  expect(matching, `one ${type}`).toHaveLength(1);
  return matching[0];
}
