import { readFileSync } from "node:fs";
import fc from "fast-check";
import { afterAll, beforeAll, expect, it } from "vitest";
import { operations } from "../../generated/operations.js";
import { operationValidators } from "../../generated/validators.js";
import { allEntities } from "../../server/src/db/entities/index.js";
import { DEFAULT_RATE_LIMITS, KEY_ROUTE_CLASSES, type RateLimits } from "../../server/src/http/rate-limit.js";
import { createStaffMember } from "../../server/src/usecases/staff/index.js";
import { type TestApi } from "../support/api.js";
import { openTestClub } from "../support/club.js";
import { describeEachDatabase } from "../support/databases.js";
import { AWKWARD_TEXT, fuzzOperations, MEGABYTE, mutate, NASTY_NUMBERS, STORED_TEXT_REFUSED, type FuzzOperation } from "./every-field.js";

/**
 * Contract-driven fuzzing: for every operation with a JSON body, bodies are
 * derived from the contract's own JSON Schemas (each property of the
 * operation's schema, and its example when the contract has one) and one
 * property at a time is replaced by a nasty value — hand-picked strings (NUL,
 * lone surrogates, RTL marks, 1 MB), deep nesting, wrong types, huge and odd
 * numbers, fast-check's arbitrary JSON. Only bodies the generated validator
 * refuses are sent, so every answer must be a 4xx in the error shape (a 422
 * naming `body…`), never a 5xx, and the database must be unchanged (row counts
 * of every table compared before/after).
 *
 * The every-field pass (every-field.ts) starts from valid requests instead, so
 * it also reaches what the validators accept: every string at any depth, array
 * item, map key, number, path and query parameter of every operation, mutated
 * one at a time. NUL and lone surrogates must be refused everywhere (checked
 * on the validators alone, then over HTTP); accepted values (RTL, combining,
 * look-alike digits, huge numbers) must never answer 5xx.
 */

/**
 * 1,000 per database keeps a local `npm test` quick; CI (.ci/run) sets
 * `CLUBE_FUZZ_REQUESTS=5000`, the full 10,006 over both databases (about a
 * minute of CPU: 10,006 requests took 56 s of CPU time on this machine).
 */
const REQUESTS_PER_DATABASE = Number(process.env.CLUBE_FUZZ_REQUESTS ?? 1_000);
const CONCURRENCY = 8;

const openapi = JSON.parse(readFileSync(new URL("../../generated/openapi.json", import.meta.url), "utf8"));
type Schema = Record<string, any>;

function resolve(schema: Schema | undefined, depth = 0): Schema {
  if (!schema || depth > 8) return {};
  if (schema.$ref) return resolve(openapi.components.schemas[schema.$ref.split("/").pop()], depth + 1);
  if (schema.allOf?.length === 1) return { ...resolve(schema.allOf[0], depth + 1), ...schema, allOf: undefined };
  return schema;
}

const nastyStrings = [
  "\u0000",
  "a\u0000b",
  "\uD800",
  "x\uDFFF",
  "\u202Eevil\u202C",
  "\u200F\u200E",
  "𝕏🎰",
  "",
  " ",
  "'; DROP TABLE participants; --",
  "../../etc/passwd",
  "%00",
  "2016-12-31T23:59:60Z",
  "0000-01-01T00:00:00Z",
  "1e400",
  "-1",
  "NaN",
  "x".repeat(10_000),
];
const deep = (depth: number): unknown => {
  let value: unknown = 1;
  for (let i = 0; i < depth; i++) value = i % 2 ? [value] : { a: value };
  return value;
};
const nastyValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(...nastyStrings),
  fc.constantFrom<unknown>(null, true, -1, 0, 1.5, -1e308, 1e308, 2 ** 53, 2 ** 63, 1e11, -0, [], {}, deep(6), deep(200), [null], { "": null }),
  fc.fullUnicodeString({ maxLength: 40 }),
  fc.integer(),
  fc.double(),
  fc.jsonValue({ maxDepth: 3 }),
);

interface Target {
  operationId: string;
  method: string;
  path: string;
  participant: boolean;
  base: Record<string, unknown>;
  properties: string[];
  session: boolean;
}

/** The operations under test: every one with a JSON body, its path filled with a plausible id. */
const targets: Target[] = operations
  .filter((op) => op.body)
  .map((op) => {
    const schema = resolve(openapi.paths[op.path][op.method].requestBody?.content?.["application/json"]?.schema);
    const example = openapi.paths[op.path][op.method].requestBody?.content?.["application/json"]?.example;
    const path = op.path.replace(/\{[^}]+\}/g, "fuzz_id_1");
    const security = op.security as readonly (readonly string[])[];
    const participant = security.every((alt) => !alt.includes("SecretKeyAuth") || alt.includes("ParticipantHeaderAuth"));
    // Staff-session-only operations (own password, staff members) are sent with an owner's session.
    const session = security.length > 0 && security.every((alt) => alt.length === 1 && alt[0] === "StaffSessionAuth");
    return {
      operationId: op.operationId,
      method: op.method.toUpperCase(),
      path,
      participant: participant && !session,
      session,
      base: example && typeof example === "object" && !Array.isArray(example) ? example : {},
      properties: Object.keys(schema.properties ?? {}),
    };
  })
  .filter((target) => target.properties.length > 0);

const bodyArbitrary = (target: Target): fc.Arbitrary<unknown> =>
  fc.oneof(
    { weight: 8, arbitrary: fc.tuple(fc.constantFrom(...target.properties), nastyValue).map(([key, value]) => ({ ...target.base, [key]: value })) },
    { weight: 1, arbitrary: fc.tuple(fc.constantFrom(...target.properties), nastyValue).map(([key, value]) => ({ [key]: value })) },
    { weight: 1, arbitrary: fc.oneof(fc.constantFrom<unknown>([], 1, "x", null, true, [target.base]), fc.constant({ ...target.base, ["unknown_\u0000"]: 1 })) },
  );

/** A body the contract refuses (the validator mutates with defaults, so it checks a copy). */
const refused = (target: Target, body: unknown) => !operationValidators[target.operationId as keyof typeof operationValidators].body!(structuredClone(body));

/** Budgets no fuzz run reaches: every request must reach validation and the handlers, not stop at 429. */
const UNLIMITED: RateLimits = {
  ...DEFAULT_RATE_LIMITS,
  keyClasses: Object.fromEntries(KEY_ROUTE_CLASSES.map((routeClass) => [routeClass, { points: 10_000_000, seconds: 10 }])) as RateLimits["keyClasses"],
  participant: { points: 10_000_000, seconds: 10 },
};

/** One request of the every-field pass. */
interface FieldRequest {
  op: FuzzOperation;
  what: string;
  path: Record<string, string>;
  query: Record<string, string>;
  body?: unknown;
}

const validatorsOf = (op: FuzzOperation) =>
  operationValidators[op.operationId as keyof typeof operationValidators] as unknown as Record<string, ((value: unknown) => boolean) | undefined>;

/** Whether the generated validators refuse the request (they fill defaults, so each checks a copy). */
function contractRefuses(request: FieldRequest): boolean {
  const validators = validatorsOf(request.op);
  if (validators.path && !validators.path({ ...request.path })) return true;
  if (validators.query && !validators.query({ ...request.query })) return true;
  return request.body !== undefined && validators.body !== undefined && !validators.body(structuredClone(request.body));
}

function baseRequest(op: FuzzOperation, body?: unknown): FieldRequest {
  return { op, what: "base", path: Object.fromEntries(op.pathParams.map((name) => [name, "fuzz_id_1"])), query: {}, body: body ?? op.bases[0]?.body };
}

/**
 * Every mutation of the every-field pass: each string (any depth, array items)
 * and map key of each operation's valid bodies with NUL or a lone surrogate
 * (all of them), each path and query parameter with NUL; then, sampled, the
 * same places with RTL and combining text, look-alike digits, SQL, 1 MB, and
 * every number with −0, ±1e308, integers past 2^53 and 2^64.
 */
function everyFieldRequests(sampled: number, seed: number): { exhaustive: FieldRequest[]; unsampled: FieldRequest[]; sampled: FieldRequest[] } {
  const exhaustive: FieldRequest[] = [];
  // Sent for every parameter like `exhaustive`, though the validators accept them.
  const unsampled: FieldRequest[] = [];
  const pool: FieldRequest[] = [];
  for (const op of fuzzOperations) {
    let turn = 0;
    for (const base of op.bases) {
      for (const slot of base.slots) {
        const where = `body.${slot.path.join(".")}${slot.kind === "key" ? " (key)" : ""}`;
        if (slot.kind === "number") {
          for (const value of NASTY_NUMBERS) pool.push({ ...baseRequest(op), what: `${where} = ${value}`, body: mutate(base.body as any, slot, value) });
          continue;
        }
        const refused = STORED_TEXT_REFUSED[turn++ % STORED_TEXT_REFUSED.length];
        exhaustive.push({ ...baseRequest(op), what: `${where} = ${JSON.stringify(refused)}`, body: mutate(base.body as any, slot, refused) });
        for (const text of AWKWARD_TEXT)
          pool.push({ ...baseRequest(op), what: `${where} = ${JSON.stringify(text)}`, body: mutate(base.body as any, slot, text) });
      }
    }
    for (const name of op.pathParams) {
      exhaustive.push({ ...baseRequest(op), what: `path.${name} = NUL`, path: { ...baseRequest(op).path, [name]: "fuzz\u0000" } });
      // Ajv coerces "1e999" to Infinity and skips range checks on it: every parameter gets it, not a sample.
      unsampled.push({ ...baseRequest(op), what: `path.${name} = 1e999`, path: { ...baseRequest(op).path, [name]: "1e999" } });
      for (const text of AWKWARD_TEXT.filter((t) => t !== ""))
        pool.push({ ...baseRequest(op), what: `path.${name} = ${JSON.stringify(text)}`, path: { ...baseRequest(op).path, [name]: text } });
    }
    for (const { name } of op.queryParams) {
      exhaustive.push({ ...baseRequest(op), what: `query.${name} = NUL`, query: { [name]: "a\u0000" } });
      for (const value of ["1e999", "-1e999"]) unsampled.push({ ...baseRequest(op), what: `query.${name} = ${value}`, query: { [name]: value } });
      for (const value of [...AWKWARD_TEXT, ...NASTY_NUMBERS.map(String), "99999999999999999999999"])
        pool.push({ ...baseRequest(op), what: `query.${name} = ${JSON.stringify(value)}`, query: { [name]: value } });
    }
  }
  // A 1 MB string in the first text place of each body operation (the body limit is 1 MiB: 413 or 422, never 5xx).
  for (const op of fuzzOperations) {
    const base = op.bases[0];
    const slot = base?.slots.find((candidate) => candidate.kind === "string");
    if (slot) exhaustive.push({ ...baseRequest(op), what: `body.${slot.path.join(".")} = 1 MB`, body: mutate(base.body as any, slot, MEGABYTE) });
  }
  const chosen = fc.sample(fc.constantFrom(...pool), { numRuns: Math.min(sampled, pool.length * 4), seed });
  return { exhaustive, unsampled, sampled: chosen };
}

function urlOf(request: FieldRequest): string {
  const path = request.op.path.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(request.path[name]));
  const query = new URLSearchParams(request.query).toString();
  return query ? `${path}?${query}` : path;
}

describeEachDatabase("fuzzing every body operation with invalid inputs", (kind) => {
  let api: TestApi;
  let sessionHeaders: Record<string, string> = {};
  beforeAll(async () => {
    api = await openTestClub(kind, { api: true, rateLimits: UNLIMITED });
    await createStaffMember(
      api.db,
      api.clubId,
      { email: "fuzz@owner.example", display_name: "Fuzz", role: "owner", password: "fuzzing owner password" },
      new Date(),
    );
    const login = await api.request("POST", "/v1/staff/sessions", {
      key: null,
      body: { club_id: api.clubId, email: "fuzz@owner.example", password: "fuzzing owner password" },
    });
    const cookie = /clube_session=[^;]+/.exec(login.headers.get("set-cookie") ?? "")![0];
    sessionHeaders = { Cookie: cookie, "X-CSRF-Token": login.body.csrf_token };
  });
  afterAll(() => api?.close());

  const counts = async () => {
    const em = api.db.em().fork();
    const entries = await Promise.all(
      allEntities.map(async (entity) => [String((entity as any).meta?.className ?? (entity as any).name), await em.count(entity as any, {})] as const),
    );
    return Object.fromEntries(entries);
  };

  it(
    `answers ${REQUESTS_PER_DATABASE} invalid requests over ≥ 15 operations with 4xx in the error shape, never 5xx, and changes nothing`,
    { timeout: Math.max(180_000, REQUESTS_PER_DATABASE * 100) },
    async () => {
      expect(targets.length).toBeGreaterThanOrEqual(15);
      const before = await counts();
      const requests = fc.sample(
        fc.constantFrom(...targets).chain((target) =>
          bodyArbitrary(target)
            .filter((body) => refused(target, body))
            .map((body) => ({ target, body })),
        ),
        { numRuns: REQUESTS_PER_DATABASE, seed: 20261123 },
      );
      // A few 1 MB strings (the body limit) on top.
      requests.push(...targets.slice(0, 3).map((target) => ({ target, body: { ...target.base, [target.properties[0]]: "x".repeat(1024 * 1024) } })));
      const statuses = new Map<number, number>();
      const problems: string[] = [];
      let next = 0;
      const worker = async () => {
        for (let i = next++; i < requests.length; i = next++) {
          const { target, body } = requests[i];
          const response = await api.request(
            target.method,
            target.path,
            target.session ? { body, key: null, headers: sessionHeaders } : { body, participant: target.participant ? "fuzz_player" : undefined },
          );
          statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
          const shape =
            response.body &&
            typeof response.body === "object" &&
            Object.keys(response.body).join() === "error" &&
            typeof response.body.error?.code === "string" &&
            typeof response.body.error?.message === "string";
          const named = response.status !== 422 || /body|path\.|participant|X-Participant/.test(response.body?.error?.message ?? "");
          if (response.status < 400 || response.status >= 500 || !shape || !named) {
            problems.push(
              `${target.operationId} ${response.status} ${JSON.stringify(response.body)?.slice(0, 200)} for ${JSON.stringify(body)?.slice(0, 200)}`,
            );
          }
        }
      };
      await Promise.all(Array.from({ length: CONCURRENCY }, worker));
      expect(problems.slice(0, 10)).toEqual([]);
      expect(requests.length).toBeGreaterThanOrEqual(REQUESTS_PER_DATABASE);
      expect([...statuses.keys()].every((status) => status >= 400 && status < 500)).toBe(true);
      expect(await counts()).toEqual(before);
      console.log(`[fuzz ${kind}] ${requests.length} requests over ${targets.length} operations: ${JSON.stringify(Object.fromEntries(statuses))}`);
    },
  );
  it("refuses NUL and lone surrogates in every string, array item, map key and parameter of every operation (the validators, without a server)", () => {
    const { exhaustive } = everyFieldRequests(0, 1);
    const accepted = exhaustive
      .filter((request) => !request.what.endsWith("1 MB") && !contractRefuses(request))
      .map((request) => `${request.op.operationId} ${request.what}`);
    expect(accepted).toEqual([]);
    // Every operation takes part: each body operation has a valid base, each has at least one place mutated.
    expect(fuzzOperations.filter((op) => op.validateBody && op.bases.length === 0).map((op) => op.operationId)).toEqual([]);
    expect(new Set(exhaustive.map((request) => request.op.operationId)).size).toBeGreaterThanOrEqual(60);
  });

  it(
    `mutates every field of every operation over HTTP: refused ones change nothing, none answers 5xx`,
    { timeout: Math.max(300_000, REQUESTS_PER_DATABASE * 150) },
    async () => {
      const { exhaustive, unsampled, sampled } = everyFieldRequests(REQUESTS_PER_DATABASE, 20261127);
      const all = [...exhaustive, ...unsampled, ...sampled];
      const refused = all.filter(contractRefuses);
      const acceptable = all.filter((request) => !contractRefuses(request));
      const statuses = new Map<number, number>();
      const problems: string[] = [];
      const send = async (request: FieldRequest) => {
        const response = await api.request(
          request.op.method,
          urlOf(request),
          request.op.session
            ? { body: request.body, key: null, headers: sessionHeaders }
            : { body: request.body, participant: request.op.participant ? "fuzz_player" : undefined },
        );
        statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
        const shape =
          response.status < 400 ||
          (response.body &&
            typeof response.body === "object" &&
            typeof response.body.error?.code === "string" &&
            typeof response.body.error?.message === "string");
        if (response.status >= 500 || !shape)
          problems.push(`${request.op.operationId} ${request.what}: ${response.status} ${JSON.stringify(response.body)?.slice(0, 200)}`);
        return response.status;
      };
      const run = async (requests: FieldRequest[], check?: (request: FieldRequest, status: number) => void) => {
        let next = 0;
        const worker = async () => {
          for (let i = next++; i < requests.length; i = next++) {
            const status = await send(requests[i]);
            check?.(requests[i], status);
          }
        };
        await Promise.all(Array.from({ length: CONCURRENCY }, worker));
      };

      // Refused by the contract: a 4xx each, and not one row written.
      const before = await counts();
      await run(refused, (request, status) => {
        if (status < 400) problems.push(`${request.op.operationId} ${request.what}: ${status} for a request the contract refuses`);
      });
      expect(problems.slice(0, 10)).toEqual([]);
      expect(await counts()).toEqual(before);
      // Accepted by the contract (valid text and numbers of every kind): whatever the answer, never a 5xx.
      await run(acceptable);
      expect(problems.slice(0, 10)).toEqual([]);
      console.log(
        `[fuzz ${kind}] every-field: ${exhaustive.length + unsampled.length} exhaustive + ${sampled.length} sampled requests (${refused.length} refused by the contract, ${acceptable.length} accepted): ${JSON.stringify(Object.fromEntries(statuses))}`,
      );
    },
  );
});
