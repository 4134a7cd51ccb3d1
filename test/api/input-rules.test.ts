import { afterAll, beforeAll, expect, it } from "vitest";
import { Event, Participant } from "../../server/src/db/entities/index.js";
import { expectError, type TestApi } from "../support/api.js";
import { openTestClub } from "../support/club.js";
import { describeEachDatabase } from "../support/databases.js";

/**
 * The input rules of the contract (spec/common.tsp `SafeString`, `Meta`;
 * spec/core/events.tsp `Instant`, amounts), enforced by the generated
 * validators: inputs that used to pass validation and then fail with a 500
 * are 422 naming the field, and nothing is written.
 */
describeEachDatabase("input rules", (kind) => {
  let api: TestApi;
  beforeAll(async () => {
    api = await openTestClub(kind, { api: true });
  });
  afterAll(() => api?.close());

  const base = { participant: "rules-ana", type: "deposit.confirmed", amount: 10, currency: "BRL" };
  const send = (body: unknown) => api.request("POST", "/v1/events", { body });
  const deep = (depth: number): unknown => (depth === 0 ? 1 : { a: deep(depth - 1) });

  it("answers 422 naming the field for NUL, lone surrogates, unreal instants, deep meta and huge amounts, and writes nothing", async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ participant: "ana\u0000" }, "body.participant"],
      [{ participant: "ana\uD800" }, "body.participant"],
      [{ id: "dep\uDC00x" }, "body.id"],
      [{ id: "dep\u0000" }, "body.id"],
      [{ occurred_at: "2016-12-31T23:59:60Z" }, "body.occurred_at"],
      [{ occurred_at: "0000-01-01T00:00:00Z" }, "body.occurred_at"],
      [{ occurred_at: "1969-12-31T23:59:59Z" }, "body.occurred_at"],
      [{ meta: deep(5) }, "body.meta"],
      [{ meta: { note: "x\u0000" } }, "body.meta"],
      [{ amount: 1e11 }, "body.amount"],
      [{ amount: "100000000000" }, "body.amount"],
      [{ amount: 1e300 }, "body.amount"],
    ];
    for (const [fields, field] of cases) {
      const response = await send({ ...base, ...fields });
      expectError(response, 422, "validation_failed", field);
    }
    // 5,000 levels, sent as text (the test's own JSON.stringify would run out of stack).
    const nested = `{"a":`.repeat(5000) + "1" + "}".repeat(5000);
    expectError(
      await api.request("POST", "/v1/events", { rawBody: JSON.stringify(base).replace(/}$/, `,"meta":${nested}}`) }),
      422,
      "validation_failed",
      "body.meta",
    );
    const em = api.db.em().fork();
    expect(await em.count(Event, {})).toBe(0);
    expect(await em.count(Participant, {})).toBe(0);
  });

  it("still accepts emoji (paired surrogates), RTL text, the largest amount and 4 levels of meta", async () => {
    const response = await send({
      ...base,
      participant: "jogador_🎰_\u202Eabc",
      amount: "999999999.99",
      occurred_at: "2025-03-14T18:22:05.123+03:00",
      meta: { a: { b: { c: [1, "🎲", null] } } },
    });
    expect(response.status).toBe(200);
  });
});
