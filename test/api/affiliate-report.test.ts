import { afterAll, beforeAll, expect, it } from "vitest";
import { csvCell, toCsv } from "../../server/src/usecases/shared/csv.js";
import { describeEachDatabase } from "../support/databases.js";
import { expectError, manualClock, type TestApi } from "../support/api.js";
import { openTestClub } from "../support/club.js";

/*
 * The affiliate report over HTTP: the figures equal the sums of the events
 * sent (first deposit once, events before attribution, other affiliates'
 * players, duplicates, failed-free and other currencies left out), the period
 * is [from, to) on `occurred_at`, and the CSV export carries the same page.
 */
describeEachDatabase("affiliate report", (kind) => {
  const clock = manualClock(new Date("2026-11-10T10:00:00Z"));
  let api: TestApi;
  let joao: string;
  let maria: string;

  const send = async (participant: string, type: string, amount: string, occurredAt: string, extra: Record<string, unknown> = {}) => {
    const response = await api.request("POST", "/v1/events", { body: { participant, type, amount, occurred_at: occurredAt, ...extra } });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
  };
  const report = async (query = "") => {
    const response = await api.request("GET", `/v1/affiliates/report${query}`);
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    return response.body;
  };
  const rowOf = (body: { data: { code: string }[] }, code: string) => body.data.find((row) => row.code === code);

  beforeAll(async () => {
    api = await openTestClub(kind, { api: true, clock });
    const create = async (code: string, name: string) => (await api.request("POST", "/v1/affiliates", { body: { code, name } })).body.id as string;
    joao = await create("JOAO1", 'João, "o Streamer"');
    clock.set(new Date("2026-11-10T10:00:01Z")); // newest first: María after João
    maria = await create("MARIA1", '=HYPERLINK("x")');
    // p1's first deposit ever comes before the attribution: it never counts, and p1 has no first deposit for João.
    await send("p1", "deposit.confirmed", "5.00", "2026-11-10T09:59:00Z", { id: "p1-dep-0" });

    clock.set(new Date("2026-11-10T12:00:00Z"));
    for (const [participant, code] of [
      ["p1", "JOAO1"],
      ["p2", "JOAO1"],
      ["p3", "MARIA1"],
    ]) {
      const attributed = await api.request("POST", "/v1/affiliates/attributions", { body: { participant_external_id: participant, code } });
      expect(attributed.status).toBe(201);
    }

    clock.set(new Date("2026-11-12T00:00:00Z"));
    await send("p1", "deposit.confirmed", "7.00", "2026-11-10T14:00:00Z");
    await send("p2", "deposit.confirmed", "20.00", "2026-11-10T13:00:00Z", { id: "p2-dep-1" });
    await send("p2", "deposit.confirmed", "20.00", "2026-11-10T13:00:00Z", { id: "p2-dep-1" }); // a repeat: counted once
    await send("p2", "bet.placed", "10.00", "2026-11-10T15:00:00Z");
    await send("p2", "bet.settled", "25.00", "2026-11-10T15:01:00Z", { meta: { outcome: "won" } });
    await send("p2", "bet.placed", "5.00", "2026-11-11T08:00:00Z");
    await send("p2", "bet.settled", "0", "2026-11-11T08:01:00Z", { meta: { outcome: "lost" } });
    await send("p2", "deposit.confirmed", "30.00", "2026-11-11T09:00:00Z");
    await send("p2", "withdrawal.completed", "15.00", "2026-11-11T10:00:00Z");
    await send("p2", "deposit.confirmed", "40.00", "2026-11-11T11:00:00Z", { currency: "USD" });
    await send("p3", "deposit.confirmed", "100.00", "2026-11-10T16:00:00Z");
    await send("p4", "deposit.confirmed", "999.00", "2026-11-10T16:00:00Z"); // no affiliate
  });
  afterAll(() => api?.close());

  it("sums what each affiliate's players did since attribution", async () => {
    const body = await report();
    expect(body).toMatchObject({ from: null, to: null, currency: "BRL", has_more: false });
    expect(body.data.map((row: { code: string }) => row.code)).toEqual(["MARIA1", "JOAO1"]);
    expect(rowOf(body, "JOAO1")).toEqual({
      affiliate_id: joao,
      code: "JOAO1",
      name: 'João, "o Streamer"',
      status: "active",
      players_attributed: 2,
      active_players: 2,
      first_deposits: 1,
      first_deposits_minor: 2000,
      deposits: 3,
      deposits_minor: 700 + 2000 + 3000,
      withdrawals_minor: 1500,
      wagers_minor: 1500,
      wins_minor: 2500,
      net_gaming_result_minor: -1000,
    });
    expect(rowOf(body, "MARIA1")).toMatchObject({
      affiliate_id: maria,
      players_attributed: 1,
      first_deposits: 1,
      first_deposits_minor: 10000,
      deposits_minor: 10000,
      wagers_minor: 0,
    });
  });

  it("counts a period from `from` inclusive to `to` exclusive on occurred_at", async () => {
    const first = await report("?from=2026-11-10T13:00:00Z&to=2026-11-11T09:00:00Z&affiliate_id=" + joao);
    expect(first.from).toBe("2026-11-10T13:00:00.000Z");
    expect(first.data).toHaveLength(1);
    expect(first.data[0]).toMatchObject({
      players_attributed: 0, // signed up at 12:00, before the period
      active_players: 2,
      first_deposits: 1,
      first_deposits_minor: 2000,
      deposits: 2,
      deposits_minor: 2700,
      withdrawals_minor: 0,
      wagers_minor: 1500,
      wins_minor: 2500,
    });
    // An offset names the same instant: 06:00 in São Paulo is 09:00 UTC.
    const rest = await report(`?from=${encodeURIComponent("2026-11-11T06:00:00-03:00")}&affiliate_id=${joao}`);
    expect(rest.data[0]).toMatchObject({
      active_players: 1,
      first_deposits: 0,
      first_deposits_minor: 0,
      deposits: 1,
      deposits_minor: 3000,
      withdrawals_minor: 1500,
      wagers_minor: 0,
    });
    const signups = await report("?from=2026-11-10T12:00:00Z&to=2026-11-10T12:00:01Z");
    expect(rowOf(signups, "JOAO1")).toMatchObject({ players_attributed: 2, deposits: 0 });
  });

  it("sums one currency at a time", async () => {
    expect(rowOf(await report("?currency=USD"), "JOAO1")).toMatchObject({ deposits: 1, deposits_minor: 4000, first_deposits: 0 });
  });

  it("pages newest affiliate first and refuses bad filters naming the field", async () => {
    const first = await report("?limit=1");
    expect(first).toMatchObject({ has_more: true, data: [{ code: "MARIA1" }] });
    const second = await report(`?limit=1&starting_after=${first.data[0].affiliate_id}`);
    expect(second).toMatchObject({ has_more: false, data: [{ code: "JOAO1" }] });
    expectError(await api.request("GET", "/v1/affiliates/report?from=2026-11-11T00:00:00Z&to=2026-11-10T00:00:00Z"), 422, "validation_failed", "query.to");
    expectError(await api.request("GET", "/v1/affiliates/report?from=yesterday"), 422, "validation_failed", "query.from");
    expectError(await api.request("GET", "/v1/affiliates/report?starting_after=aff_nope"), 422, "validation_failed", "query.starting_after");
    expectError(await api.request("GET", "/v1/affiliates/report.csv?currency=real"), 422, "validation_failed", "query.currency");
    const other = await api.createOtherClub();
    const foreign = await api.request("GET", "/v1/affiliates/report", { key: other.keys.test });
    expect(foreign.body.data).toEqual([]);
  });

  it("exports the same page as CSV, escaped", async () => {
    const json = await report("?limit=1&starting_after=" + maria);
    const csv = await api.request("GET", `/v1/affiliates/report.csv?limit=1&starting_after=${maria}`);
    expect(csv.status).toBe(200);
    expect(csv.headers.get("content-type")).toMatch(/^text\/csv/);
    expect(csv.headers.get("clube-has-more")).toBe("false");
    const lines = (csv.body as string).split("\r\n");
    expect(lines[0]).toBe(
      "affiliate_id,code,name,status,players_attributed,active_players,first_deposits,first_deposits_minor,deposits,deposits_minor,withdrawals_minor,wagers_minor,wins_minor,net_gaming_result_minor",
    );
    const row = json.data[0];
    expect(lines[1]).toBe(`${joao},JOAO1,"João, ""o Streamer""",active,2,2,1,2000,3,5700,1500,1500,2500,-1000`);
    expect(lines[1]).toBe(
      Object.values(row)
        .map((value) => csvCell(value as string | number))
        .join(","),
    );
    expect(lines.slice(2)).toEqual([""]);
    const all = await api.request("GET", "/v1/affiliates/report.csv");
    expect((all.body as string).split("\r\n")[1]).toContain(`,MARIA1,"'=HYPERLINK(""x"")",`);
  });

  it("writes CSV cells by RFC 4180 with the formula guard", () => {
    expect(
      toCsv(
        ["a", "b"],
        [
          ["x,y", 3],
          ["line\nbreak", null],
          ["-1", -1],
          ["@sum", "plain"],
        ],
      ),
    ).toBe('a,b\r\n"x,y",3\r\n"line\nbreak",\r\n\'-1,-1\r\n\'@sum,plain\r\n');
  });
});
