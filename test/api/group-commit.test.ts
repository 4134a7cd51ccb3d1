import { afterAll, beforeAll, expect, it } from "vitest";
import { Event, Participant } from "../../server/src/db/entities/index.js";
import { expectError, type ApiResponse, type TestApi } from "../support/api.js";
import { openTestClub } from "../support/club.js";
import { describeEachDatabase } from "../support/databases.js";
import { participantStateOf } from "../support/participant-state.js";

/**
 * Group commit of single events (server/src/db/group-commit.ts):
 * concurrent `POST /v1/events` of one club are applied together in one
 * transaction. Whatever the grouping, the state must be the one the same
 * events give sent one by one, each caller gets its own answer, a bad event
 * fails alone, and a key is applied once.
 */

/** The i-th event of a small casino mix for `participant`, keyed by `prefix`. */
function mixEvent(participant: string, prefix: string, i: number): Record<string, unknown> {
  const id = `${prefix}-${i}`;
  switch (i % 4) {
    case 0:
      return { participant, type: "deposit.confirmed", id, amount: 20 + (i % 5) * 10, currency: "BRL", meta: { method: "pix" } };
    case 1:
    case 2:
      return { participant, type: "bet.placed", id, amount: `${1 + (i % 7)}.50`, currency: "BRL", meta: { game_type: "video-slots" } };
    default:
      return { participant, type: "bet.settled", id, amount: i % 3, currency: "BRL", meta: { game_type: "video-slots" } };
  }
}

describeEachDatabase("group commit of single events", (kind) => {
  let api: TestApi;
  beforeAll(async () => {
    api = await openTestClub(kind, { api: true });
  });
  afterAll(() => api?.close());

  const send = (body: unknown, headers: Record<string, string> = {}) => api.request("POST", "/v1/events", { body, headers });

  const stateOf = (externalId: string) => participantStateOf(api.db, { clubId: api.clubId }, externalId);

  it("concurrent events of many participants give the same state as the same events sent one by one", async () => {
    const players = 5;
    const perPlayer = 6;
    const events = (prefix: string) => Array.from({ length: players * perPlayer }, (_, i) => mixEvent(`${prefix}-p${i % players}`, `${prefix}-e`, i));
    for (const event of events("seq")) expect((await send(event)).status).toBe(200);
    const together = await Promise.all(events("par").map((event) => send(event)));
    expect(together.map((response) => response.status)).toEqual(together.map(() => 200));
    // Each caller got its own event.
    const ids = together.map((response) => response.body.event_id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(together.every((response) => response.body.duplicate === false)).toBe(true);
    for (let p = 0; p < players; p++) expect(await stateOf(`par-p${p}`)).toEqual(await stateOf(`seq-p${p}`));
  });

  it("one participant's concurrent events all count, and their answers carry their own effects", async () => {
    const bets = Array.from({ length: 20 }, (_, i) => ({
      participant: "gc-same",
      type: "bet.placed",
      id: `gc-same-${i}`,
      amount: 10,
      currency: "BRL",
      meta: { game_type: "video-slots" },
    }));
    const answers = await Promise.all(bets.map((bet) => send(bet)));
    expect(answers.map((response) => response.status)).toEqual(bets.map(() => 200));
    for (const response of answers) expect(response.body.effects).toContainEqual({ type: "xp_granted", amount: 10, rule_id: "bet-xp" });
    expect(await stateOf("gc-same")).toMatchObject({ xp: 200, eventCounts: { "bet.placed": 20 } });
  });

  it("a bad event among concurrent ones fails alone (409 event_id_conflict) and changes nothing", async () => {
    expect((await send({ participant: "gc-owner", type: "deposit.confirmed", id: "gc-taken", amount: 50, currency: "BRL" })).status).toBe(200);
    const neighbours = Array.from({ length: 9 }, (_, i) => mixEvent(`gc-n${i % 3}`, "gc-n", i));
    const bad = { participant: "gc-thief", type: "deposit.confirmed", id: "gc-taken", amount: 50, currency: "BRL" };
    const answers = await Promise.all([...neighbours.slice(0, 4), bad, ...neighbours.slice(4)].map((event) => send(event)));
    expectError(answers[4], 409, "event_id_conflict");
    const others = answers.filter((_, i) => i !== 4);
    expect(others.map((response) => response.status)).toEqual(others.map(() => 200));
    expect(await api.db.em().fork().count(Participant, { clubId: api.clubId, externalId: "gc-thief" })).toBe(0);
    expect(await api.db.em().fork().count(Event, { clubId: api.clubId, idempotencyKey: "gc-taken" })).toBe(1);
  });

  it("the same event id sent concurrently is applied once; every other copy answers the first result as a duplicate", async () => {
    const deposit = { participant: "gc-dup", type: "deposit.confirmed", id: "gc-dup-1", amount: 100, currency: "BRL" };
    const answers = await Promise.all(Array.from({ length: 12 }, () => send(deposit)));
    expect(answers.map((response) => response.status)).toEqual(answers.map(() => 200));
    const firsts = answers.filter((response) => !response.body.duplicate);
    expect(firsts).toHaveLength(1);
    for (const response of answers) expect(response.body).toEqual({ ...firsts[0].body, duplicate: response.body.duplicate });
    expect(await stateOf("gc-dup")).toMatchObject({ eventCounts: { "deposit.confirmed": 1 } });
  });

  it("the same Idempotency-Key sent concurrently is applied once (the others: the replayed result or 409 idempotency_key_in_use)", async () => {
    const deposit = { participant: "gc-hdr", type: "deposit.confirmed", amount: 100, currency: "BRL" };
    const answers = await Promise.all(Array.from({ length: 8 }, () => send(deposit, { "Idempotency-Key": "gc-hdr-key-1" })));
    const ok = answers.filter((response) => response.status === 200);
    const busy = answers.filter((response) => response.status !== 200);
    for (const response of busy) expectError(response, 409, "idempotency_key_in_use");
    expect(ok.filter((response) => !response.body.duplicate)).toHaveLength(1);
    expect(new Set(ok.map((response: ApiResponse) => response.body.event_id)).size).toBe(1);
    expect(await stateOf("gc-hdr")).toMatchObject({ eventCounts: { "deposit.confirmed": 1 } });
  });

  it("the same key for two participants at once: one is applied, the other is refused with 409 event_id_conflict", async () => {
    const answers = await Promise.all(
      ["gc-k1", "gc-k2"].map((participant) => send({ participant, type: "deposit.confirmed", id: "gc-shared-key", amount: 10, currency: "BRL" })),
    );
    const ok = answers.filter((response) => response.status === 200);
    expect(ok).toHaveLength(1);
    expectError(
      answers.find((response) => response.status !== 200)!,
      409,
      "event_id_conflict",
    );
  });
});
