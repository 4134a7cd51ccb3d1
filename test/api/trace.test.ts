// The "why" trace through HTTP on both databases: `?trace=true` on POST
// /v1/events, always on POST /v1/events/test, kept in the event log; a
// misspelled type's warning names the configured type.
import { afterAll, beforeAll, expect, it } from "vitest";
import { demoConfig, manualClock, type TestApi } from "../support/api.js";
import { openTestClub } from "../support/club.js";
import { describeEachDatabase } from "../support/databases.js";

const NOW = new Date("2026-11-18T12:00:00Z");

describeEachDatabase("API why trace", (kind) => {
  let api: TestApi;
  const clock = manualClock(NOW);

  beforeAll(async () => {
    api = await openTestClub(kind, { api: true, clock });
    const config = await demoConfig();
    // A rule whose amount expression fails at run time (the event has no meta.bonus).
    config.rules.push({ id: "broken-bonus", trigger: { event: "deposit.confirmed" }, effects: [{ type: "grant_xp", amount: "event.meta.bonus * 2" }] });
    expect((await api.request("PUT", "/v1/config/draft", { body: config })).status).toBe(200);
    expect((await api.request("POST", "/v1/config/publish")).status).toBe(200);
  });
  afterAll(() => api?.close());

  const entry = (body: any, id: string) => body.trace.entries.find((candidate: any) => candidate.id === id);

  it("names the failing condition with its actual value and an expression error, only when asked", async () => {
    const plain = await api.request("POST", "/v1/events", { body: { participant: "why_1", type: "deposit.confirmed", id: "why-dep-0", amount: 10 } });
    expect(plain.status).toBe(200);
    expect(plain.body.trace).toBeUndefined();
    expect(plain.body.warnings).toBeUndefined();

    const traced = await api.request("POST", "/v1/events?trace=true", {
      body: { participant: "why_1", type: "deposit.confirmed", id: "why-dep-1", amount: "12.50" },
    });
    expect(traced.status).toBe(200);
    expect(entry(traced.body, "first-deposit")).toMatchObject({
      kind: "rule",
      matched: false,
      reason: { code: "condition", condition: "first_time", actual: 1 },
    });
    expect(entry(traced.body, "deposit-coins")).toMatchObject({ matched: false, reason: { code: "condition", condition: "amount >= 50", actual: "12.50" } });
    expect(entry(traced.body, "deposit-xp")).toEqual({ kind: "rule", id: "deposit-xp", matched: true });
    expect(entry(traced.body, "broken-bonus")).toMatchObject({
      matched: true,
      skipped_effects: [{ effect: "grant_xp", reason: "expression_error", detail: expect.any(String) }],
    });
    expect(entry(traced.body, "deposito-diario")).toMatchObject({ kind: "mission" });
    expect(traced.body.trace.warnings).toEqual([]);
  });

  it("names a limit with its counter", async () => {
    const send = (id: string) => api.request("POST", "/v1/events?trace=true", { body: { participant: "why_2", type: "user.verified", id } });
    expect(entry((await send("why-ver-1")).body, "verified")).toEqual({ kind: "rule", id: "verified", matched: true });
    const second = await send("why-ver-2");
    expect(entry(second.body, "verified")).toMatchObject({
      matched: false,
      reason: { code: "limit_reached", limit: "max_runs_per_participant", counter: 1, maximum: 1 },
    });
  });

  it("warns about a misspelled type naming the right one; test events always carry the trace, kept in the event log", async () => {
    const misspelled = await api.request("POST", "/v1/events", { body: { participant: "why_3", type: "deposit.confrimed", amount: 50 } });
    expect(misspelled.status).toBe(200);
    expect(misspelled.body.effects).toEqual([]);
    expect(misspelled.body.warnings).toEqual([expect.objectContaining({ code: "unknown_event_type", closest_type: "deposit.confirmed" })]);

    const test = await api.request("POST", "/v1/events/test", { body: { participant: "why_3", type: "deposit.confrimed", amount: 50 } });
    expect(test.status).toBe(200);
    expect(test.body.trace.warnings).toEqual([expect.objectContaining({ closest_type: "deposit.confirmed" })]);
    expect(entry(test.body, "deposit-xp")).toMatchObject({ matched: false, reason: { code: "trigger_type", expected_type: "deposit.confirmed" } });

    const log = await api.request("GET", "/v1/events?participant=why_3");
    expect(log.status).toBe(200);
    const byId = (id: string) => log.body.data.find((row: any) => row.id === id);
    const [testEntry, plainEntry] = [byId(test.body.event_id), byId(misspelled.body.event_id)];
    expect(testEntry.trace).toEqual(test.body.trace);
    expect(plainEntry.trace).toBeNull();

    // Past the retention the log no longer shows it.
    clock.set(new Date(NOW.getTime() + 8 * 86_400_000));
    const later = await api.request("GET", "/v1/events?participant=why_3");
    expect(later.body.data.map((row: any) => row.trace)).toEqual([null, null]);
    clock.set(NOW);
  });
});
