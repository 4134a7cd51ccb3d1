import { readFileSync } from "node:fs";
import { schemaValidators, type SchemaName } from "../../generated/validators.js";
import { Balance, LedgerEntry, OutboxMessage, Participant } from "../../server/src/db/entities/index.js";
import type { Database } from "../../server/src/db/orm.js";
import type { Scope } from "../../server/src/db/scope.js";
import type { EventInput } from "../../server/src/usecases/events/ingest.js";

export const PUBLIC_URL = "https://clube.cassino.example.com";

/** An event input as the HTTP layer hands it over: validated against the contract, defaults filled. */
export function eventInput(input: Record<string, unknown>): EventInput {
  const copy = structuredClone(input);
  if (!schemaValidators.EventInput(copy)) throw new Error(`invalid test event: ${JSON.stringify(schemaValidators.EventInput.errors)}`);
  return copy as EventInput;
}

/** The validator of each webhook event's full body, by event type (the models marked `x-webhook-event`). */
const openapi = JSON.parse(readFileSync(new URL("../../generated/openapi.json", import.meta.url), "utf8")) as {
  components: { schemas: Record<string, { "x-webhook-event"?: string }> };
};
const webhookValidators = new Map(
  Object.entries(openapi.components.schemas).flatMap(([name, schema]) =>
    schema["x-webhook-event"] ? [[schema["x-webhook-event"], schemaValidators[name as SchemaName]] as const] : [],
  ),
);

export interface RecordedWebhook {
  type: string;
  data: Record<string, unknown>;
}

/**
 * The webhooks recorded in the outbox so far, each checked against its
 * contract schema (a type the contract lacks, like a rule's custom event, is
 * checked for the envelope only).
 */
export async function recordedWebhooks(db: Database, scope: Scope): Promise<RecordedWebhook[]> {
  const rows = await db.em().find(OutboxMessage, { ...scope, kind: "webhook" }, { orderBy: { createdAt: "asc" } });
  return rows.map((row) => {
    const envelope = structuredClone(row.payload) as { type: string; data: Record<string, unknown>; club_id: string; env: string };
    // Typed as a plain check: the union of every schema's type guard would narrow the envelope to never.
    const validate = (webhookValidators.get(envelope.type) ?? schemaValidators.WebhookEnvelope) as unknown as ((data: unknown) => boolean) & {
      errors?: unknown;
    };
    if (!validate(envelope)) throw new Error(`${envelope.type} does not match its schema: ${JSON.stringify(validate.errors)}\n${JSON.stringify(envelope)}`);
    if (envelope.club_id !== scope.clubId || envelope.env !== scope.env) throw new Error(`${envelope.type} recorded for another club or environment`);
    return { type: envelope.type, data: envelope.data };
  });
}

/** The participant's stored row. */
export async function participantRow(db: Database, scope: Scope, externalId: string): Promise<Participant> {
  return db.em().findOneOrFail(Participant, { ...scope, externalId });
}

/** Balance rows by currency (minor units). */
export async function balancesOf(db: Database, participantId: string): Promise<Record<string, number>> {
  const rows = await db.em().find(Balance, { participantId });
  return Object.fromEntries(rows.map((row) => [row.currency, row.amount]));
}

/** The sum of the ledger per unit (`xp` or a currency code): what the balances must equal. */
export async function ledgerSums(db: Database, participantId: string): Promise<Record<string, number>> {
  const sums: Record<string, number> = {};
  for (const row of await db.em().find(LedgerEntry, { participantId })) sums[row.unit] = (sums[row.unit] ?? 0) + row.delta;
  return sums;
}
