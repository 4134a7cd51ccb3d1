import { afterAll, beforeAll, expect, it } from "vitest";
import { workerTasks } from "../../server/src/usecases/scheduled/index.js";
import { demoConfig } from "../support/api.js";
import { ok, type ClubClient } from "../async/support/client.js";
import { shiftableClock } from "../async/support/clock.js";
import { Endpoints, noticesOf, waitForNotices, type ConnectedEndpoint } from "../async/support/endpoints.js";
import { describeEachStack, startInProcessStack, type InProcessStack } from "../async/support/stack.js";

/*
 * The whole tournament story over HTTP on each stack: configure a tournament
 * and official tournaments, send bets, read standings from /v1/me and the
 * server routes, move the club's test clock past endsAt (its advance runs the
 * settlement job), and find the prizes as
 * deliveries and rewards and the signed webhooks at a real local receiver.
 */
describeEachStack("tournaments end to end over HTTP", (kind) => {
  const clock = shiftableClock();
  const endpoints = new Endpoints(clock);
  let stack: InProcessStack;
  let club: ClubClient;
  let endpoint: ConnectedEndpoint;
  const HOUR = 3_600_000;

  beforeAll(async () => {
    stack = await startInProcessStack(kind, { clock });
    club = await stack.newClub();
    const start = clock.now();
    const config = await demoConfig();
    config.tournaments.push({
      id: "e2e-slots",
      title: "Corrida de slots",
      event: "bet.placed",
      scoring: "sum",
      games: { only: { categories: ["video-slots"] } },
      startsAt: new Date(start.getTime() - HOUR).toISOString(),
      endsAt: new Date(start.getTime() + HOUR).toISOString(),
      prizes: [
        { from: 1, to: 1, reward: "bonus-20" },
        { from: 2, to: 2, reward: "coins-50" },
      ],
    });
    config.officialTournaments = {
      enabled: true,
      timezone: "America/Sao_Paulo",
      daily: { poolPercent: 10, seed: 1, split: [70, 30] },
      monthly: { enabled: false },
    };
    await ok(club.call("PUT", "/v1/config/draft", { body: config }));
    await ok(club.call("POST", "/v1/config/publish", { body: {} }));
    endpoint = await endpoints.connect(club, ["reward.*", "tournament.finished"]);
  });
  afterAll(async () => {
    await endpoints.stopAll();
    await stack?.close();
  });

  it("scores bets, shows standings, settles at endsAt and pays the prizes with signed webhooks", async () => {
    for (const [participant, amount] of [
      ["ana", "50.00"],
      ["bia", 80],
      ["caio", "20"],
    ] as const) {
      await ok(club.call("POST", "/v1/events", { body: { type: "bet.placed", participant, amount, meta: { game_type: "video-slots" } } }));
    }
    // Not a slot: no score in e2e-slots, nor on the slots track.
    await ok(club.call("POST", "/v1/events", { body: { type: "bet.placed", participant: "caio", amount: 500, meta: { game_type: "live-casino" } } }));

    const mine = await ok(club.call("GET", "/v1/me/tournaments?limit=3", { participant: "ana" }));
    const race = mine.data.find((view: any) => view.tournament_id === "e2e-slots");
    expect(race).toMatchObject({ kind: "tournament", status: "running", score: 50, rank: 2 });
    expect(race.top.map((row: any) => [row.rank, row.score, row.is_me])).toEqual([
      [1, 80, false],
      [2, 50, true],
      [3, 20, false],
    ]);
    const track = mine.data.find((view: any) => view.tournament_id === "official:slots:daily:BRL" && view.status === "running");
    // 1.00 seed + 10 % of 150.00 = 16.00; 70 % and 30 %.
    expect(track).toMatchObject({ kind: "official", pool_minor: 1600, currency: "BRL", rank: 2 });
    expect(track.prizes.map((prize: any) => prize.amount_minor)).toEqual([1120, 480]);

    const list = await ok(club.call("GET", "/v1/tournaments"));
    const listed = list.data.find((entry: any) => entry.tournament_id === "e2e-slots");
    expect(listed.editions[0]).toMatchObject({ status: "running", participants: 3 });
    const edition = listed.editions[0].edition_id;
    const page = await ok(club.call("GET", `/v1/tournaments/e2e-slots/editions/${edition}/standings?limit=2`));
    expect(page.data.map((row: any) => [row.rank, row.external_id, row.score])).toEqual([
      [1, "bia", 80],
      [2, "ana", 50],
    ]);
    expect(page.has_more).toBe(true);
    const rest = await ok(club.call("GET", `/v1/tournaments/e2e-slots/editions/${edition}/standings?limit=2&after_rank=2`));
    expect(rest.data.map((row: any) => row.external_id)).toEqual(["caio"]);
    expect((await club.call("GET", "/v1/tournaments/nope/editions/2026-01-01/standings")).status).toBe(404);

    // Past endsAt and past the official day's end through the club's test clock: the advance runs the settlement job day by day.
    const to = new Date(clock.now().getTime() + 26 * HOUR);
    const advanced = await ok(club.call("POST", "/v1/test_clock/advance", { body: { to: to.toISOString() } }));
    expect(advanced.tasks).toEqual(expect.arrayContaining([expect.objectContaining({ name: "tournament settlement" })]));
    // Another pass of the job (another worker) at the same time pays nothing more.
    const settle = workerTasks(stack.db, stack.url).find((task) => task.name === "tournament settlement")!;
    expect(await settle.runFor!({ clubId: club.clubId, env: "test" }, to)).toMatchObject({ settled: 0, prizes: 0 });

    const finishedOf = (id: string) => noticesOf(endpoint.receiver, "tournament.finished").filter((notice) => notice.envelope.data.tournament_id === id);
    await waitForNotices(
      endpoint.receiver,
      "tournament.finished for both",
      () => finishedOf("e2e-slots").length === 1 && finishedOf("official:slots:daily:BRL").length === 1,
    );
    const [raceDone] = finishedOf("e2e-slots");
    expect(raceDone.envelope.data.standings.map((row: any) => [row.rank, row.participant.external_id, row.score])).toEqual([
      [1, "bia", 80],
      [2, "ana", 50],
      [3, "caio", 20],
    ]);
    expect(raceDone.envelope.data.prizes.map((prize: any) => [prize.participant.external_id, prize.reward])).toEqual([
      ["bia", "bonus-20"],
      ["ana", "coins-50"],
    ]);
    const [trackDone] = finishedOf("official:slots:daily:BRL");
    expect(trackDone.envelope.data).toMatchObject({ pool_minor: 1600, currency: "BRL" });
    expect(trackDone.envelope.data.prizes.map((prize: any) => [prize.participant.external_id, prize.amount_minor])).toEqual([
      ["bia", 1120],
      ["ana", 480],
    ]);

    // caio's live-casino bet alone makes the ao-vivo track's pool (1.00 + 50.00): he wins 70 % of it.
    const ours = (source: unknown) => /^tournament:(e2e-slots|official:slots:daily:BRL|official:ao-vivo:daily:BRL):/.test(String(source));
    await waitForNotices(
      endpoint.receiver,
      "reward webhooks of the five prizes",
      (notices) =>
        notices.filter((notice) => notice.envelope.type === "reward.granted" && ours(notice.envelope.data.source)).length === 5 &&
        notices.filter((notice) => notice.envelope.type === "reward.delivery_requested" && ours(notice.envelope.data.source)).length === 4,
    );
    const requested = noticesOf(endpoint.receiver, "reward.delivery_requested").filter(
      (notice) => notice.envelope.data.reward.code === "official-tournament-prize",
    );
    expect(
      requested
        .map((notice) => [
          notice.envelope.data.participant.external_id,
          notice.envelope.data.reward.payload.amount_minor,
          notice.envelope.data.reward.payload.currency,
        ])
        .sort(),
    ).toEqual([
      ["ana", 480, "BRL"],
      ["bia", 1120, "BRL"],
      ["caio", 3570, "BRL"],
    ]);
    expect(requested[0].envelope.data.reward.payload.kind).toBe("cash");
    for (const notice of noticesOf(endpoint.receiver)) expect(notice.request.signatureValid, notice.envelope.type).toBe(true);

    const deliveries = await ok(club.call("GET", "/v1/deliveries?status=pending"));
    expect(deliveries.deliveries.map((delivery: any) => delivery.reward_code).sort()).toEqual([
      "bonus-20",
      "official-tournament-prize",
      "official-tournament-prize",
      "official-tournament-prize",
    ]);
    const rewards = await ok(club.call("GET", "/v1/me/rewards", { participant: "ana" }));
    expect(JSON.stringify(rewards)).toContain("coins-50");

    // The settled edition is frozen: a bet that occurred inside its window but arrives late changes nothing.
    await ok(
      club.call("POST", "/v1/events", {
        body: {
          type: "bet.placed",
          participant: "caio",
          amount: 999,
          meta: { game_type: "video-slots" },
          occurred_at: new Date(to.getTime() - 26 * HOUR).toISOString(),
        },
      }),
    );
    const after = await ok(club.call("GET", `/v1/tournaments/e2e-slots/editions/${edition}/standings`));
    expect(after).toMatchObject({ status: "settled" });
    expect(after.data.map((row: any) => row.score)).toEqual([80, 50, 20]);
  });
});
