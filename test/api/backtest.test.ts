// Backtests through HTTP on both databases: a draft that doubles a rule's XP
// reports twice the XP the published configuration actually granted on the
// same events, and writes nothing.
import type { EntityName } from "@mikro-orm/core";
import { afterAll, beforeAll, expect, it } from "vitest";
import { ConfigVersion, Event, LedgerEntry, Participant, RuleDedupeKey, RuleRunDay, Balance, MissionProgress } from "../../server/src/db/entities/index.js";
import { processBacktest } from "../../server/src/usecases/sandbox/run-backtest.js";
import { expectError, manualClock, type TestApi } from "../support/api.js";
import { openTestClub } from "../support/club.js";
import { describeEachDatabase } from "../support/databases.js";

const DAY = new Date("2026-11-18T12:00:00Z");
const minutes = (n: number) => new Date(DAY.getTime() + n * 60_000);

describeEachDatabase("API backtest", (kind) => {
  let api: TestApi;
  const clock = manualClock(minutes(-120));

  beforeAll(async () => {
    api = await openTestClub(kind, { api: true, clock });
    // History before the period: counts for first_time, XP for levels.
    expect((await api.request("POST", "/v1/events", { body: { participant: "bt_1", type: "deposit.confirmed", id: "bt-old", amount: 30 } })).status).toBe(200);
    const deposits: [string, number][] = [
      ["bt_1", 60],
      ["bt_2", 25],
      ["bt_3", 120],
      ["bt_2", 80],
      ["bt_1", 10],
    ];
    for (const [i, [participant, amount]] of deposits.entries()) {
      clock.set(minutes(i));
      expect((await api.request("POST", "/v1/events", { body: { participant, type: "deposit.confirmed", id: `bt-${i}`, amount } })).status).toBe(200);
    }
    clock.set(minutes(60));
  });
  afterAll(() => api?.close());

  const counts = async () => {
    const em = api.db.em().fork();
    const entities = [Event, LedgerEntry, Participant, RuleDedupeKey, RuleRunDay, Balance, MissionProgress, ConfigVersion] as unknown as EntityName<
      Record<string, unknown>
    >[];
    return Promise.all(entities.map((entity) => em.count(entity, {})));
  };

  it("reports twice the XP for a draft doubling a rule's XP, and writes nothing", async () => {
    const config = (await api.request("GET", "/v1/config")).body.config;
    const rule = config.rules.find((candidate: any) => candidate.id === "deposit-xp");
    rule.effects[0].amount = `(${rule.effects[0].amount}) * 2`;
    const draft = await api.request("PUT", "/v1/config/draft", { body: config });
    expect(draft.status).toBe(200);

    const before = await counts();
    const result = await api.request("POST", `/v1/config/versions/${draft.body.version}/backtest`, {
      body: { from: minutes(-1).toISOString(), to: minutes(30).toISOString() },
    });
    expect(result.status).toBe(200);
    expect(await counts()).toEqual(before);

    expect(result.body).toMatchObject({ version: draft.body.version, events: 5, participants: 3 });
    const source = (id: string) => result.body.sources.find((candidate: any) => candidate.source === id);
    const xp = source("rule:deposit-xp");
    expect(xp.published).toMatchObject({ runs: 5, participants: 3, xp: (60 + 25 + 120 + 80 + 10) * 2 });
    expect(xp.draft.xp).toBe(2 * xp.published.xp);
    expect(xp.difference.xp).toBe(xp.published.xp);
    // A rule the draft leaves alone does the same on replay as it did.
    expect(source("rule:deposit-coins").draft).toEqual(source("rule:deposit-coins").published);
    expect(source("rule:first-deposit").draft).toEqual(source("rule:first-deposit").published);
  });

  it("runs as a job with Prefer: respond-async: 202, progress, then the same result", async () => {
    const body = { from: minutes(-1).toISOString(), to: minutes(30).toISOString() };
    const direct = await api.request("POST", "/v1/config/versions/1/backtest", { body });
    const accepted = await api.request("POST", "/v1/config/versions/1/backtest", { body, headers: { Prefer: "respond-async" } });
    expect(accepted.status).toBe(202);
    expect(accepted.body).toMatchObject({ status: "queued", version: 1, events_total: 5, events_done: 0, result: null });
    // The worker's side, as the `backtest` queue consumer runs it.
    await processBacktest(api.db, { clubId: api.clubId, env: "test" }, accepted.body.id, () => minutes(61));
    const job = await api.request("GET", `/v1/config/backtests/${accepted.body.id}`);
    expect(job.status).toBe(200);
    expect(job.body).toMatchObject({ status: "done", events_total: 5, events_done: 5, finished_at: minutes(61).toISOString(), error: null });
    expect(job.body.result).toEqual(direct.body);
    // On the published configuration itself, the rules replay as they ran.
    for (const source of direct.body.sources.filter((candidate: any) => candidate.source.startsWith("rule:")))
      expect(source.draft, source.source).toEqual(source.published);
    expectError(await api.request("GET", "/v1/config/backtests/btr_nope"), 404, "not_found");
  });

  it("answers 404 for an unknown version and 422 for an empty period", async () => {
    expectError(
      await api.request("POST", "/v1/config/versions/99/backtest", { body: { from: minutes(0).toISOString(), to: minutes(1).toISOString() } }),
      404,
      "not_found",
    );
    expectError(
      await api.request("POST", "/v1/config/versions/1/backtest", { body: { from: minutes(1).toISOString(), to: minutes(1).toISOString() } }),
      422,
      "validation_failed",
      "body.to",
    );
  });
});
