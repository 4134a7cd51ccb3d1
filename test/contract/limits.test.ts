// The request bounds of the core document's Limits table (and the field bounds
// of its resources), checked on the generated validators the server uses: each
// bound passes exactly at its edge and fails one past it, naming the field.
// Then every example in the published document must match its own schema, so
// `prism mock` and the reference never show a payload the server would refuse.
import { readFileSync } from "node:fs";
import type { ValidateFunction } from "ajv";
import { describe, expect, it } from "vitest";
import { operationValidators, type OperationValidators } from "../../generated/validators.js";

const ops = operationValidators;

/** Runs a validator on a copy (validators fill defaults into what they check). */
function check(validate: ValidateFunction, value: unknown): { ok: boolean; value: unknown; field: string | undefined } {
  const copy = structuredClone(value);
  const ok = validate(copy) as boolean;
  return { ok, value: copy, field: ok ? undefined : validate.errors?.[0]?.instancePath };
}

const text = (length: number, char = "a"): string => char.repeat(length);
const ids = (count: number): string[] => Array.from({ length: count }, (_, i) => `user_${i}`);
/** An absolute URI of exactly `length` characters. */
const uri = (length: number): string => {
  const prefix = "https://cdn.cassinodosol.com.br/";
  return prefix + text(length - prefix.length);
};

const event = (fields: Record<string, unknown> = {}) => ({ participant: "user_8412", type: "deposit.confirmed", ...fields });
const game = (i: number) => ({ id: `game-${i}`, name: `Jogo ${i}` });
const games = (count: number) => Array.from({ length: count }, (_, i) => game(i));

interface BoundCase {
  /** What the seed bounds. */
  limit: string;
  validate: ValidateFunction;
  /** The instancePath a failure must name. */
  field: string;
  passes: unknown[];
  fails: unknown[];
}

const cases: BoundCase[] = [
  {
    limit: "external_ids per progress request: 1..200",
    validate: ops.Participants_progressBatch.body,
    field: "/external_ids",
    passes: [{ external_ids: ids(1) }, { external_ids: ids(200) }],
    fails: [{ external_ids: [] }, { external_ids: ids(201) }],
  },
  {
    limit: "each external id of a progress request: 1..128 characters",
    validate: ops.Participants_progressBatch.body,
    field: "/external_ids/0",
    passes: [{ external_ids: [text(1)] }, { external_ids: [text(128)] }],
    fails: [{ external_ids: [""] }, { external_ids: [text(129)] }],
  },
  {
    limit: "events per batch: 1..500",
    validate: ops.Events_sendBatch.body,
    field: "/events",
    passes: [{ events: [event()] }, { events: Array.from({ length: 500 }, (_, i) => event({ id: `dep_${i}` })) }],
    fails: [{ events: [] }, { events: Array.from({ length: 501 }, (_, i) => event({ id: `dep_${i}` })) }],
  },
  {
    limit: "a batch names the invalid event",
    validate: ops.Events_sendBatch.body,
    field: "/events/3/type",
    passes: [{ events: [event(), event(), event(), event({ type: "bet.placed" })] }],
    fails: [{ events: [event(), event(), event(), event({ type: "Deposit.confirmed" })] }],
  },
  {
    limit: "token ttl_seconds: 60..86400",
    validate: ops.Participants_createToken.body,
    field: "/ttl_seconds",
    passes: [{ ttl_seconds: 60 }, { ttl_seconds: 86400 }, {}],
    fails: [{ ttl_seconds: 59 }, { ttl_seconds: 86401 }, { ttl_seconds: 900.5 }],
  },
  {
    limit: "participant external_id (upsert): 1..128 characters",
    validate: ops.Participants_upsert.body,
    field: "/external_id",
    passes: [{ external_id: text(1) }, { external_id: text(128) }],
    fails: [{ external_id: "" }, { external_id: text(129) }],
  },
  {
    limit: "participant external_id (path): 1..128 characters",
    validate: ops.Participants_get.path,
    field: "/external_id",
    passes: [{ external_id: text(1) }, { external_id: text(128) }],
    fails: [{ external_id: "" }, { external_id: text(129) }],
  },
  {
    limit: "event participant: 1..128 characters",
    validate: ops.Events_send.body,
    field: "/participant",
    passes: [event({ participant: text(1) }), event({ participant: text(128) })],
    fails: [event({ participant: "" }), event({ participant: text(129) })],
  },
  {
    limit: "event id: 1..128 characters",
    validate: ops.Events_send.body,
    field: "/id",
    passes: [event({ id: text(1) }), event({ id: text(128) })],
    fails: [event({ id: "" }), event({ id: text(129) })],
  },
  {
    limit: "Idempotency-Key (events): 1..128 characters",
    validate: ops.Events_send.headers,
    field: "/idempotency-key",
    passes: [{ "idempotency-key": text(1) }, { "idempotency-key": text(128) }, {}],
    fails: [{ "idempotency-key": "" }, { "idempotency-key": text(129) }],
  },
  {
    limit: "Idempotency-Key (redemptions): 8..120 characters",
    validate: ops.Redemptions_create.headers,
    field: "/idempotency-key",
    passes: [{ "idempotency-key": text(8) }, { "idempotency-key": text(120) }, {}],
    fails: [{ "idempotency-key": text(7) }, { "idempotency-key": text(121) }],
  },
  {
    limit: "event type: 3..64 characters",
    validate: ops.Events_send.body,
    field: "/type",
    passes: [event({ type: "a.b" }), event({ type: `${text(31)}.${text(32, "b")}` })],
    fails: [event({ type: "a." }), event({ type: `${text(31)}.${text(33, "b")}` })],
  },
  {
    limit: "event type: lower-case domain.action",
    validate: ops.Events_send.body,
    field: "/type",
    passes: [event({ type: "deposit.confirmed" }), event({ type: "custom.vip_call.done" }), event({ type: "user.signed_up" })],
    fails: [event({ type: "Deposit.confirmed" }), event({ type: "deposit" }), event({ type: "deposit." }), event({ type: "1deposit.ok" })],
  },
  {
    limit: "event currency: exactly 3 letters, either case (normalised to upper case)",
    validate: ops.Events_send.body,
    field: "/currency",
    passes: [event({ currency: "BRL" }), event({ currency: "USD" }), event({ currency: "brl" }), event({ currency: "Usd" })],
    fails: [event({ currency: "BR" }), event({ currency: "BRLL" }), event({ currency: "R$1" }), event({ currency: "bř1" })],
  },
  {
    limit: "event amount: a non-negative number or decimal string",
    validate: ops.Events_send.body,
    field: "/amount",
    passes: [event({ amount: 0 }), event({ amount: 150.5 }), event({ amount: "150.50" }), event({ amount: "0" })],
    fails: [event({ amount: -1 }), event({ amount: "-1.00" }), event({ amount: "1,50" }), event({ amount: "R$ 10" })],
  },
  {
    limit: "event occurred_at: a date-time",
    validate: ops.Events_send.body,
    field: "/occurred_at",
    passes: [event({ occurred_at: "2025-03-14T18:21:58Z" }), event({ occurred_at: "2025-03-14T15:21:58-03:00" })],
    fails: [event({ occurred_at: "2025-03-14" }), event({ occurred_at: "14/03/2025 18:21" })],
  },
  {
    limit: "event input is closed (meta is the free-form place)",
    validate: ops.Events_send.body,
    field: "/game_type",
    passes: [event({ meta: { game_type: "crash", any: { nested: [1, 2] } } })],
    fails: [event({ game_type: "crash" })],
  },
  {
    limit: "referral code: 4..16 characters",
    validate: ops.Referrals_register.body,
    field: "/code",
    passes: [
      { referred_external_id: "user_9120", code: text(4, "A") },
      { referred_external_id: "user_9120", code: text(16, "A") },
    ],
    fails: [
      { referred_external_id: "user_9120", code: text(3, "A") },
      { referred_external_id: "user_9120", code: text(17, "A") },
    ],
  },
  {
    limit: "affiliate code: 4..16 characters",
    validate: ops.Affiliates_attribute.body,
    field: "/code",
    passes: [
      { participant_external_id: "user_9120", code: text(4, "A") },
      { participant_external_id: "user_9120", code: text(16, "A") },
    ],
    fails: [
      { participant_external_id: "user_9120", code: text(3, "A") },
      { participant_external_id: "user_9120", code: text(17, "A") },
    ],
  },
  {
    limit: "affiliate signup_at: a date-time",
    validate: ops.Affiliates_attribute.body,
    field: "/signup_at",
    passes: [{ participant_external_id: "user_9120", code: "ANA2024", signup_at: "2025-03-14T17:55:00Z" }],
    fails: [{ participant_external_id: "user_9120", code: "ANA2024", signup_at: "ontem" }],
  },
  {
    limit: "confirm external_ref: at most 200 characters",
    validate: ops.Deliveries_confirm.body,
    field: "/external_ref",
    passes: [{}, { external_ref: text(200) }],
    fails: [{ external_ref: text(201) }],
  },
  {
    limit: "confirm note: 1..500 characters",
    validate: ops.Deliveries_confirm.body,
    field: "/note",
    passes: [{ note: text(1) }, { note: text(500) }],
    fails: [{ note: "" }, { note: text(501) }],
  },
  {
    limit: "confirm details.spins: >0 and <=10000",
    validate: ops.Deliveries_confirm.body,
    field: "/details/spins",
    passes: [{ details: { spins: 1 } }, { details: { spins: 10000 } }],
    fails: [{ details: { spins: 0 } }, { details: { spins: 10001 } }, { details: { spins: 2.5 } }],
  },
  {
    limit: "confirm details.game: at most 80 characters",
    validate: ops.Deliveries_confirm.body,
    field: "/details/game",
    passes: [{ details: { game: text(80) } }],
    fails: [{ details: { game: text(81) } }],
  },
  {
    limit: "confirm details.game_code: at most 80 characters",
    validate: ops.Deliveries_confirm.body,
    field: "/details/game_code",
    passes: [{ details: { game_code: text(80) } }],
    fails: [{ details: { game_code: text(81) } }],
  },
  {
    limit: "confirm details.game_image: a URI of at most 2000 characters",
    validate: ops.Deliveries_confirm.body,
    field: "/details/game_image",
    passes: [{ details: { game_image: uri(2000) } }],
    fails: [{ details: { game_image: uri(2001) } }, { details: { game_image: "not a uri" } }],
  },
  {
    limit: "confirm details.play_url: at most 2000 characters",
    validate: ops.Deliveries_confirm.body,
    field: "/details/play_url",
    passes: [{ details: { play_url: uri(2000) } }],
    fails: [{ details: { play_url: uri(2001) } }],
  },
  {
    limit: "fail reason: 1..500 characters",
    validate: ops.Deliveries_fail.body,
    field: "/reason",
    passes: [{ reason: text(1) }, { reason: text(500) }],
    fails: [{ reason: "" }, { reason: text(501) }],
  },
  {
    limit: "fail reason: required",
    validate: ops.Deliveries_fail.body,
    field: "",
    passes: [{ reason: "Conta bloqueada" }],
    fails: [{}],
  },
  {
    limit: "tags per participant: at most 20",
    validate: ops.Participants_upsert.body,
    field: "/tags",
    passes: [{ external_id: "user_8412", tags: ids(20) }],
    fails: [{ external_id: "user_8412", tags: ids(21) }],
  },
  {
    limit: "each tag: at most 32 characters",
    validate: ops.Participants_upsert.body,
    field: "/tags/0",
    passes: [{ external_id: "user_8412", tags: [text(32)] }],
    fails: [{ external_id: "user_8412", tags: [text(33)] }],
  },
  {
    limit: "display_name: at most 80 characters, or null",
    validate: ops.Participants_upsert.body,
    field: "/display_name",
    passes: [
      { external_id: "user_8412", display_name: text(80) },
      { external_id: "user_8412", display_name: null },
    ],
    fails: [{ external_id: "user_8412", display_name: text(81) }],
  },
  {
    limit: "phone: at most 32 characters, or null",
    validate: ops.Participants_upsert.body,
    field: "/phone",
    passes: [
      { external_id: "user_8412", phone: text(32, "9") },
      { external_id: "user_8412", phone: null },
    ],
    fails: [{ external_id: "user_8412", phone: text(33, "9") }],
  },
  {
    limit: "email: e-mail format, or null",
    validate: ops.Participants_upsert.body,
    field: "/email",
    passes: [
      { external_id: "user_8412", email: "ana.souza@example.com.br" },
      { external_id: "user_8412", email: null },
    ],
    fails: [
      { external_id: "user_8412", email: "ana.souza.example.com.br" },
      { external_id: "user_8412", email: "ana@" },
    ],
  },
  {
    limit: "avatar_url: a URI, or null",
    validate: ops.Participants_upsert.body,
    field: "/avatar_url",
    passes: [
      { external_id: "user_8412", avatar_url: "https://cdn.cassinodosol.com.br/a.png" },
      { external_id: "user_8412", avatar_url: null },
    ],
    fails: [{ external_id: "user_8412", avatar_url: "avatar.png" }],
  },
  {
    limit: "rename new_external_id: 1..128 characters",
    validate: ops.Participants_rename.body,
    field: "/new_external_id",
    passes: [{ new_external_id: text(1) }, { new_external_id: text(128) }],
    fails: [{ new_external_id: "" }, { new_external_id: text(129) }],
  },
  {
    limit: "rename new_external_id: letters, digits and . _ : @ -",
    validate: ops.Participants_rename.body,
    field: "/new_external_id",
    passes: [{ new_external_id: "br:8412" }, { new_external_id: "ana.souza@cassino_sol-1" }],
    fails: [{ new_external_id: "br 8412" }, { new_external_id: "usuário" }, { new_external_id: "a/b" }],
  },
  {
    limit: "redemption participant and reward: at least 1 character",
    validate: ops.Redemptions_create.body,
    field: "/reward",
    passes: [{ participant: "user_8412", reward: "x" }],
    fails: [{ participant: "user_8412", reward: "" }],
  },
  {
    limit: "games per sync: 1..5000",
    validate: ops.Games_sync.body,
    field: "/games",
    passes: [{ games: games(1) }, { games: games(5000) }],
    fails: [{ games: [] }, { games: games(5001) }],
  },
  {
    limit: "game id in a sync: 1..120 characters",
    validate: ops.Games_sync.body,
    field: "/games/0/id",
    passes: [{ games: [{ id: text(1), name: "Aviator" }] }, { games: [{ id: text(120), name: "Aviator" }] }],
    fails: [{ games: [{ id: "", name: "Aviator" }] }, { games: [{ id: text(121), name: "Aviator" }] }],
  },
  {
    limit: "games list limit: 1..500",
    validate: ops.Games_list.query,
    field: "/limit",
    passes: [{ limit: "1" }, { limit: "500" }],
    fails: [{ limit: "0" }, { limit: "501" }, { limit: "dez" }],
  },
  {
    limit: "deliveries list: up to 200 items (pages of 1 to 200)",
    validate: ops.Deliveries_list.query,
    field: "/limit",
    passes: [{ limit: "1" }, { limit: "200" }],
    fails: [{ limit: "0" }, { limit: "201" }],
  },
  {
    limit: "deliveries list status: pending, delivered or failed",
    validate: ops.Deliveries_list.query,
    field: "/status",
    passes: [{}, { status: "pending" }, { status: "delivered" }, { status: "failed" }],
    fails: [{ status: "sent" }, { status: "PENDING" }],
  },
];

/** A short test name for a value: long strings and arrays are shown by their length. */
function label(value: unknown): string {
  return JSON.stringify(value, (_key, inner: unknown) => {
    if (typeof inner === "string" && inner.length > 24) return `<${inner.length} chars>`;
    if (Array.isArray(inner) && inner.length > 4) return `<${inner.length} items>`;
    return inner;
  });
}

describe.each(cases)("$limit", ({ validate, field, passes, fails }) => {
  it.each(passes.map((value) => ({ value, name: label(value) })))("accepts $name", ({ value }) => {
    const result = check(validate, value);
    expect(validate.errors ?? []).toEqual([]);
    expect(result.ok).toBe(true);
  });

  it.each(fails.map((value) => ({ value, name: label(value) })))("rejects $name naming the field", ({ value }) => {
    const result = check(validate, value);
    expect(result.ok).toBe(false);
    expect(result.field).toBe(field);
  });
});

describe("defaults filled by the validators", () => {
  it("token ttl_seconds defaults to 900", () => {
    expect(check(ops.Participants_createToken.body, {}).value).toEqual({ ttl_seconds: 900 });
  });

  it("event currency defaults to BRL and meta to {}", () => {
    expect(check(ops.Events_send.body, event()).value).toEqual({ ...event(), currency: "BRL", meta: {} });
  });

  it("every event of a batch gets the event defaults", () => {
    const { value } = check(ops.Events_sendBatch.body, { events: [event(), event({ currency: "USD" })] });
    expect(value).toEqual({
      events: [
        { ...event(), currency: "BRL", meta: {} },
        { ...event(), currency: "USD", meta: {} },
      ],
    });
  });

  it("rename merge and dry_run default to false", () => {
    expect(check(ops.Participants_rename.body, { new_external_id: "br:8412" }).value).toEqual({
      new_external_id: "br:8412",
      merge: false,
      dry_run: false,
    });
  });

  it("games sync deactivate_missing defaults to false", () => {
    expect(check(ops.Games_sync.body, { games: games(1) }).value).toEqual({ games: games(1), deactivate_missing: false });
  });

  it("games list limit defaults to 100 and is coerced from the query string", () => {
    expect(check(ops.Games_list.query, {}).value).toEqual({ limit: 100 });
    expect(check(ops.Games_list.query, { limit: "250", active: "true" }).value).toEqual({ limit: 250, active: true });
  });

  it("deliveries list limit defaults to 200, the seed's list size", () => {
    expect(check(ops.Deliveries_list.query, {}).value).toEqual({ limit: 200 });
  });
});

// ───────────── Examples of the published document against its schemas ─────────────

interface MediaTypeObject {
  example?: unknown;
  examples?: Record<string, { value?: unknown }>;
}
interface ResponseObject {
  content?: Record<string, MediaTypeObject>;
  headers?: Record<string, { schema?: { enum?: unknown[] } }>;
}
interface OperationObject {
  operationId: string;
  requestBody?: { content?: Record<string, MediaTypeObject> };
  responses: Record<string, ResponseObject>;
}

const document = JSON.parse(readFileSync(new URL("../../generated/openapi.json", import.meta.url), "utf8")) as {
  paths: Record<string, Record<string, OperationObject>>;
};
const HTTP_METHODS = new Set(["get", "put", "post", "delete", "options", "head", "patch", "trace"]);
const operations = Object.values(document.paths).flatMap((item) =>
  Object.entries(item)
    .filter(([method]) => HTTP_METHODS.has(method))
    .map(([, operation]) => operation),
);
const operationById = new Map(operations.map((operation) => [operation.operationId, operation]));

/** Every example of a JSON media type, by name (a lone `example` is named "example"). */
function examplesOf(media: MediaTypeObject | undefined): [string, unknown][] {
  if (media === undefined) return [];
  const named = Object.entries(media.examples ?? {}).map(([name, example]): [string, unknown] => [name, example.value]);
  return media.example === undefined ? named : [["example", media.example], ...named];
}

const validatorsOf = (operationId: string): OperationValidators => (operationValidators as Record<string, OperationValidators>)[operationId];

const responseExamples = operations.flatMap((operation) =>
  Object.entries(operation.responses).flatMap(([status, response]) =>
    // JSON, or the one text type of an export (CSV), whose body is a string.
    examplesOf(response.content?.["application/json"] ?? Object.values(response.content ?? {})[0]).map(([name, value]) => ({
      operationId: operation.operationId,
      status,
      name,
      value,
    })),
  ),
);
const requestExamples = operations.flatMap((operation) =>
  examplesOf(operation.requestBody?.content?.["application/json"]).map(([name, value]) => ({ operationId: operation.operationId, name, value })),
);

describe("examples of the published document", () => {
  it("every operation has an example of a success response", () => {
    const without = operations
      // A 204 (sign-out) has no body to give an example of.
      .filter(
        (operation) =>
          !Object.keys(operation.responses)
            .filter((status) => status.startsWith("2"))
            .every((status) => status === "204"),
      )
      .filter((operation) => !responseExamples.some((example) => example.operationId === operation.operationId && example.status.startsWith("2")))
      .map((operation) => operation.operationId);
    expect(without).toEqual([]);
  });

  it.each(responseExamples)("$operationId $status '$name' matches the response schema", ({ operationId, status, value }) => {
    const validate = validatorsOf(operationId).responses[status];
    check(validate, value);
    expect(validate.errors ?? []).toEqual([]);
  });

  it.each(requestExamples)("$operationId request '$name' matches the body schema", ({ operationId, value }) => {
    const validate = validatorsOf(operationId).body!;
    check(validate, value);
    expect(validate.errors ?? []).toEqual([]);
  });
});

describe("response headers of the Limits table", () => {
  it("progress answers Cache-Control: private, max-age=15", () => {
    const progress = operationById.get("Participants_progress")!;
    expect(progress.responses["200"].headers?.["Cache-Control"]?.schema?.enum).toEqual(["private, max-age=15"]);
  });

  it.each(["Events_send", "Events_sendBatch"])("%s answers 202 with Preference-Applied: respond-async", (operationId) => {
    const operation = operationById.get(operationId)!;
    expect(operation.responses["202"].headers?.["Preference-Applied"]?.schema?.enum).toEqual(["respond-async"]);
  });
});
