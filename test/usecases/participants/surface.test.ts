import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { schemaValidators, type SchemaName } from "../../../generated/validators.js";
import { MissionProgress, Participant, ParticipantReward, WebhookEndpoint } from "../../../server/src/db/entities/index.js";
import { confirmDelivery, failDelivery } from "../../../server/src/usecases/rewards/deliveries.js";
import { ApiError } from "../../../server/src/usecases/shared/errors.js";
import { ingestEvent } from "../../../server/src/usecases/events/ingest.js";
import { listMyTournaments } from "../../../server/src/usecases/tournaments/views.js";
import { claimMyMission, listMyMissions } from "../../../server/src/usecases/missions/index.js";
import { listMyBadges } from "../../../server/src/usecases/participants/index.js";
import { listMyRewards, listStore, redeemFromStore } from "../../../server/src/usecases/rewards/index.js";
import { getLeaderboard, listMyLeaderboards } from "../../../server/src/usecases/tournaments/index.js";
import { describeEachDatabase } from "../../support/databases.js";
import { eventInput, participantRow, PUBLIC_URL, recordedWebhooks } from "../fixtures.js";
import { openTestClub, type DatabaseClub } from "../../support/club.js";
import { demoConfig } from "../../support/club-config.js";
import { jsonText } from "../../../server/src/cache/json-text.js";

/** Wednesday 2026-11-18, 09:00 in São Paulo (ISO week 2026-W47). */
const WEDNESDAY = new Date("2026-11-18T12:00:00Z");
const at = (minutes: number, from = WEDNESDAY) => new Date(from.getTime() + minutes * 60_000);

/** The demo casino plus leaderboards in every state: a recent ended one, a future one, a disabled one, and a rules-only campaign. */
function surfaceConfig(): Record<string, unknown> {
  const config = demoConfig() as { rules: unknown[]; tournaments: unknown[] };
  const prizes = [{ from: 1, to: 1, reward: "bonus-20" }];
  const games = (category: string) => ({ only: { categories: [category], providers: [], games: [] }, exclude: { categories: [], providers: [], games: [] } });
  config.tournaments.push(
    {
      id: "aviator-relampago",
      title: "Corrida do Aviator",
      event: "bet.placed",
      games: games("crash"),
      startsAt: "2026-11-10T03:00:00Z",
      endsAt: "2026-11-15T03:00:00Z",
      prizes,
      minScore: 100,
    },
    { id: "natal", title: "Torneio de Natal", event: "bet.placed", startsAt: "2026-12-20T03:00:00Z", endsAt: "2026-12-26T03:00:00Z", prizes },
    {
      id: "desativado",
      title: "Torneio desativado",
      event: "bet.placed",
      startsAt: "2026-11-01T03:00:00Z",
      endsAt: "2026-12-01T03:00:00Z",
      prizes,
      enabled: false,
    },
  );
  config.rules.push(
    {
      id: "aviator-points",
      trigger: { event: "bet.placed" },
      games: games("crash"),
      effects: [{ type: "add_leaderboard_points", campaign: "aviator-relampago", points: "event.amount" }],
    },
    {
      id: "deposit-points",
      trigger: { event: "deposit.confirmed" },
      effects: [{ type: "add_leaderboard_points", campaign: "ranking-depositos", points: "event.amount" }],
    },
  );
  return config;
}

describeEachDatabase("participant surface", (kind) => {
  let club: DatabaseClub;

  beforeAll(async () => {
    club = await openTestClub(kind, { config: surfaceConfig() });
    // Webhook rows of redemptions are written only for events an enabled endpoint takes.
    await club.db.em().insert(WebhookEndpoint, {
      id: "we_surface",
      ...club.scope,
      url: "https://hooks.example.com/clube",
      events: ["reward.*"],
      description: null,
      enabled: true,
      secret: "whsec_surface",
      previousSecret: null,
      previousSecretExpiresAt: null,
      createdAt: WEDNESDAY,
      updatedAt: WEDNESDAY,
      deletedAt: null,
    });
  });
  afterAll(async () => {
    await club?.close();
  });

  const send = (input: Record<string, unknown>, now: Date) => ingestEvent(club.db, club.scope, eventInput(input), { now, publicUrl: PUBLIC_URL });

  function valid<T>(schema: SchemaName, value: T): T {
    const validate = schemaValidators[schema];
    expect(validate(structuredClone(value)), JSON.stringify(validate.errors)).toBe(true);
    return value;
  }

  async function refusal(call: Promise<unknown>): Promise<{ status: number; code: string; message: string }> {
    const error = await call.then(
      () => null,
      (err: unknown) => err,
    );
    expect(error).toBeInstanceOf(ApiError);
    const { status, code, message } = error as ApiError;
    return { status, code, message };
  }

  describe("missions", () => {
    it("lists the participant's missions in their current period, by order then id; audience missions only for their tag", async () => {
      await send({ participant: "ana", type: "user.signed_up", id: "ana-signup" }, WEDNESDAY);
      const before = valid("MyMissionList", await listMyMissions(club.db, club.scope, "ana", WEDNESDAY));
      expect(before.data.map((mission) => mission.id)).toEqual(["apostar-500", "crash-10", "deposito-diario", "slots-50", "verificar-conta"]);
      expect(before.data[0]).toEqual({
        id: "apostar-500",
        title: "Aposte R$ 500 na semana",
        description: null,
        illustration: "target",
        event: "bet.placed",
        period: "weekly",
        goal: { kind: "sum", field: "amount", target: 500 },
        progress: 0,
        completed: false,
        claimable: false,
        claimed: false,
        period_key: "2026-W47",
        reward: { code: "free-spins-20", title: "20 giros grátis" },
        starts_at: null,
        ends_at: null,
      });

      await send({ participant: "ana", type: "user.verified", id: "ana-verified" }, at(1));
      await send({ participant: "ana", type: "deposit.confirmed", id: "ana-dep-1", amount: 300 }, at(2));
      const after = await listMyMissions(club.db, club.scope, "ana", at(3));
      expect(after.data.map((mission) => mission.id)).toEqual(["apostar-500", "crash-10", "deposito-diario", "deposito-mensal", "slots-50", "verificar-conta"]);
      const byId = new Map(after.data.map((mission) => [mission.id, mission]));
      expect(byId.get("deposito-diario")).toMatchObject({
        progress: 1,
        completed: true,
        claimable: false,
        claimed: true,
        period_key: "2026-11-18",
        reward: { code: "coins-50", title: "50 moedas" },
      });
      expect(byId.get("deposito-mensal")).toMatchObject({ progress: 300, completed: false, claimable: false, period_key: "2026-11" });
      expect(byId.get("verificar-conta")).toMatchObject({ completed: true, claimed: true, period_key: "once" });
      // The answer's text, spliced from parts made once per mission, is JSON.stringify's to the byte.
      expect(jsonText(after)).toBe(JSON.stringify(after));
      expect(jsonText(before)).toBe(JSON.stringify(before));
      // The next club day the daily mission starts over.
      expect(
        (await listMyMissions(club.db, club.scope, "ana", new Date("2026-11-19T03:00:00Z"))).data.find((mission) => mission.id === "deposito-diario"),
      ).toMatchObject({ progress: 0, completed: false, claimed: false, period_key: "2026-11-19" });
    });

    it("claims a completed manual mission once per period; refuses what is not claimable", async () => {
      const bet = (id: string, amount: number, minute: number) =>
        send({ participant: "bia", type: "bet.placed", id, amount, meta: { game_type: "table-games" } }, at(minute));
      await bet("bia-bet-1", 200, 0);
      expect(await refusal(claimMyMission(club.db, club.scope, "bia", "apostar-500", { now: at(1), publicUrl: PUBLIC_URL }))).toEqual({
        status: 409,
        code: "not_claimable",
        message: `Mission "apostar-500" is not completed in period 2026-W47 (200 of 500).`,
      });
      expect(await refusal(claimMyMission(club.db, club.scope, "bia", "deposito-diario", { now: at(1), publicUrl: PUBLIC_URL }))).toMatchObject({
        status: 409,
        code: "not_claimable",
      });
      expect(await refusal(claimMyMission(club.db, club.scope, "bia", "missao-antiga", { now: at(1), publicUrl: PUBLIC_URL }))).toEqual({
        status: 404,
        code: "not_found",
        message: `Mission "missao-antiga" was not found.`,
      });
      // deposito-mensal is for verified players only: not listed for bia, so not found.
      expect(await refusal(claimMyMission(club.db, club.scope, "bia", "deposito-mensal", { now: at(1), publicUrl: PUBLIC_URL }))).toMatchObject({
        status: 404,
      });
      expect(await refusal(claimMyMission(club.db, club.scope, "ninguem", "apostar-500", { now: at(1), publicUrl: PUBLIC_URL }))).toMatchObject({
        status: 404,
      });

      await bet("bia-bet-2", 300, 2);
      expect((await listMyMissions(club.db, club.scope, "bia", at(3))).data.find((mission) => mission.id === "apostar-500")).toMatchObject({
        progress: 500,
        completed: true,
        claimable: true,
        claimed: false,
      });
      const claim = valid("MissionClaimResult", await claimMyMission(club.db, club.scope, "bia", "apostar-500", { now: at(4), publicUrl: PUBLIC_URL }));
      expect(claim).toEqual({
        mission_id: "apostar-500",
        period_key: "2026-W47",
        reward_granted: { reward_code: "free-spins-20", reward_id: expect.stringMatching(/^rwd_/), delivery_id: expect.stringMatching(/^dlv_/) },
        effects: [
          {
            type: "reward_granted",
            reward_code: "free-spins-20",
            rule_id: "mission:apostar-500",
            reward_id: claim.reward_granted!.reward_id,
            delivery_id: claim.reward_granted!.delivery_id!,
          },
        ],
      });
      const bia = await participantRow(club.db, club.scope, "bia");
      const requested = (await recordedWebhooks(club.db, club.scope)).filter(
        (hook) => hook.type === "reward.delivery_requested" && (hook.data.participant as { id: string }).id === bia.id,
      );
      expect(requested.map((hook) => hook.data.source)).toEqual(["mission:apostar-500"]);
      const row = await club.db.em().findOneOrFail(MissionProgress, { participantId: bia.id, missionId: "apostar-500" });
      expect(row.claimedAt?.toISOString()).toBe(at(4).toISOString());
      expect(row.completedAt?.toISOString()).toBe(at(2).toISOString());

      expect(await refusal(claimMyMission(club.db, club.scope, "bia", "apostar-500", { now: at(5), publicUrl: PUBLIC_URL }))).toEqual({
        status: 409,
        code: "already_claimed",
        message: `Mission "apostar-500" was already claimed in period 2026-W47.`,
      });
      // Next week the mission starts over.
      const nextWeek = new Date("2026-11-23T12:00:00Z");
      expect(await refusal(claimMyMission(club.db, club.scope, "bia", "apostar-500", { now: nextWeek, publicUrl: PUBLIC_URL }))).toMatchObject({
        status: 409,
        code: "not_claimable",
        message: expect.stringContaining("period 2026-W48 (0 of 500)"),
      });
    });

    it("grants one of two claims of one mission sent at once, the other 409 already_claimed", async () => {
      await send({ participant: "duda", type: "bet.placed", id: "duda-bet-1", amount: 500, meta: { game_type: "table-games" } }, at(0));
      const claim = () => claimMyMission(club.db, club.scope, "duda", "apostar-500", { now: at(1), publicUrl: PUBLIC_URL });
      const results = await Promise.allSettled([claim(), claim()]);
      expect(results.filter((result) => result.status === "fulfilled")).toHaveLength(1);
      const refused = results.find((result): result is PromiseRejectedResult => result.status === "rejected");
      expect(await refusal(Promise.reject(refused!.reason))).toMatchObject({ status: 409, code: "already_claimed" });
      const duda = await participantRow(club.db, club.scope, "duda");
      expect(await club.db.em().count(ParticipantReward, { participantId: duda.id, source: "mission:apostar-500" })).toBe(1);
    });

    it("a mission whose reward is currency claims with no reward record", async () => {
      // crash-10 pays coins-200, a configured reward; a mission paying a currency spec is covered by a copy paying `coins:200`.
      const config = surfaceConfig() as { missions: { id: string; reward: string }[] };
      config.missions.find((mission) => mission.id === "crash-10")!.reward = "coins:200";
      const other = await openTestClub(kind, { config: config as unknown as Record<string, unknown> });
      try {
        for (let n = 0; n < 10; n++) {
          await ingestEvent(
            other.db,
            other.scope,
            eventInput({ participant: "caio", type: "bet.placed", id: `caio-crash-${n}`, amount: 1, meta: { game_type: "crash" } }),
            { now: at(n), publicUrl: PUBLIC_URL },
          );
        }
        const claim = await claimMyMission(other.db, other.scope, "caio", "crash-10", { now: at(10), publicUrl: PUBLIC_URL });
        expect(claim).toEqual({
          mission_id: "crash-10",
          period_key: "2026-W47",
          reward_granted: null,
          effects: [{ type: "currency_granted", currency: "coins", amount: 200, rule_id: "mission:crash-10" }],
        });
      } finally {
        await other.close();
      }
    });
  });

  describe("rewards, badges and the store", () => {
    it("lists rewards newest first with the state of their delivery, and expiry", async () => {
      await send({ participant: "davi", type: "deposit.confirmed", id: "davi-dep-1", amount: 100 }, at(0));
      for (let n = 0; n < 9; n++) await send({ participant: "davi", type: "deposit.confirmed", id: `davi-dep-${n + 2}`, amount: 10 }, at(60 * 24 * (n + 1)));
      const rewards = valid("MyRewardList", await listMyRewards(club.db, club.scope, "davi", at(60 * 24 * 10)));
      const byCode = (code: string) => rewards.data.filter((reward) => reward.reward_code === code);
      expect(byCode("free-spins-50")).toEqual([
        expect.objectContaining({
          title: "50 giros grátis",
          type: "client_delivered",
          status: "pending_delivery",
          source: "rule:tenth-deposit",
          delivery_id: expect.any(String),
        }),
      ]);
      expect(byCode("bonus-first-deposit")).toEqual([expect.objectContaining({ status: "pending_delivery", source: "rule:first-deposit" })]);
      expect(byCode("coins-50")).toHaveLength(10);
      expect(byCode("coins-50")[0]).toMatchObject({
        type: "internal",
        status: "granted",
        source: "mission:deposito-diario",
        delivery_id: null,
        expires_at: null,
      });
      expect(rewards.data.map((reward) => reward.granted_at)).toEqual([...rewards.data.map((reward) => reward.granted_at)].sort().reverse());

      await confirmDelivery(club.db, club.scope, byCode("bonus-first-deposit")[0].delivery_id!, { external_ref: "b-1" }, at(60 * 24 * 10));
      await failDelivery(club.db, club.scope, byCode("free-spins-50")[0].delivery_id!, { reason: "Jogo indisponível" }, at(60 * 24 * 10));
      const closed = await listMyRewards(club.db, club.scope, "davi", at(60 * 24 * 10));
      expect(closed.data.find((reward) => reward.reward_code === "bonus-first-deposit")!.status).toBe("delivered");
      expect(closed.data.find((reward) => reward.reward_code === "free-spins-50")!.status).toBe("delivery_failed");

      // free-spins-20 expires 7 days after it is granted: pending until then, expired from that instant.
      await send({ participant: "davi", type: "bet.placed", id: "davi-bet", amount: 500 }, at(60 * 24 * 10));
      const spins = await claimMyMission(club.db, club.scope, "davi", "apostar-500", { now: at(60 * 24 * 10 + 1), publicUrl: PUBLIC_URL });
      const statusAt = async (when: Date) =>
        (await listMyRewards(club.db, club.scope, "davi", when)).data.find((reward) => reward.id === spins.reward_granted!.reward_id)!.status;
      const expiresAt = at(60 * 24 * 17 + 1);
      expect(await statusAt(new Date(expiresAt.getTime() - 1))).toBe("pending_delivery");
      expect(await statusAt(expiresAt)).toBe("expired");
      expect(await refusal(listMyRewards(club.db, club.scope, "ninguem", WEDNESDAY))).toMatchObject({ status: 404 });
    });

    it("lists badges newest first", async () => {
      await send({ participant: "eva", type: "deposit.confirmed", id: "eva-dep", amount: 50 }, at(0));
      await send({ participant: "eva", type: "bet.settled", id: "eva-win", amount: 2000 }, at(1));
      expect(valid("MyBadgeList", await listMyBadges(club.db, club.scope, "eva"))).toEqual({
        data: [
          { badge_code: "grande-vitoria", granted_at: at(1).toISOString(), rule_id: "big-win" },
          { badge_code: "primeiro-deposito", granted_at: at(0).toISOString(), rule_id: "first-deposit" },
        ],
      });
    });

    it("lists the priced rewards with what the participant can afford; a balance equal to the price affords it", async () => {
      // 100 welcome coins + 50 from the daily deposit mission + 849 from a 8490 deposit: one short of the 1000 of store-bonus-10; gui has exactly 1000.
      for (const [participant, amount] of [
        ["fabi", 8490],
        ["gui", 8500],
      ] as const) {
        await send({ participant, type: "user.signed_up", id: `${participant}-signup` }, at(0));
        await send({ participant, type: "deposit.confirmed", id: `${participant}-dep`, amount }, at(1));
      }
      const affordable = (store: { data: { code: string; affordable: boolean }[] }) =>
        Object.fromEntries(store.data.map((item) => [item.code, item.affordable]));
      const short = valid("StoreItemList", await listStore(club.db, club.scope, "fabi", at(2)));
      expect(short.data[0]).toEqual({
        code: "store-bonus-10",
        title: "R$ 10 de bônus",
        description: null,
        illustration: "gift",
        type: "client_delivered",
        cost: { currency: "coins", amount: 1000 },
        affordable: false,
      });
      expect(affordable(short)).toEqual({ "store-bonus-10": false, "store-cash-5": false, "avatar-dourado": false });
      expect(affordable(await listStore(club.db, club.scope, "gui", at(2)))).toEqual({
        "store-bonus-10": true,
        "store-cash-5": false,
        "avatar-dourado": false,
      });

      const bought = valid(
        "Redemption",
        await redeemFromStore(club.db, club.scope, "gui", "store-bonus-10", { idempotencyKey: "loja-gui-0001", now: at(5), publicUrl: PUBLIC_URL }),
      );
      expect(bought).toMatchObject({ reward_code: "store-bonus-10", balance_after: 0, delivery_status: "pending" });
      expect(
        await redeemFromStore(club.db, club.scope, "gui", "store-bonus-10", { idempotencyKey: "loja-gui-0001", now: at(6), publicUrl: PUBLIC_URL }),
      ).toEqual({ ...bought, duplicate: true });
      const gui = await participantRow(club.db, club.scope, "gui");
      const granted = (await recordedWebhooks(club.db, club.scope)).filter(
        (hook) => hook.type === "reward.granted" && (hook.data.participant as { id: string }).id === gui.id,
      );
      expect(granted.at(-1)!.data.source).toBe("redemption:store-bonus-10");
      expect(affordable(await listStore(club.db, club.scope, "gui", at(7)))["store-bonus-10"]).toBe(false);
    });
  });

  describe("leaderboards", () => {
    const slots = (participant: string, id: string, amount: number | string, now: Date) =>
      send({ participant, type: "bet.placed", id, amount, meta: { game_type: "video-slots" } }, now);

    it("ranks by points, highest first, equal points by who reached them first; shows the participant's own place", async () => {
      await slots("gabi", "gabi-1", 120, at(0));
      await slots("hugo", "hugo-1", 80, at(1));
      await slots("iris", "iris-1", 120, at(2));
      await slots("hugo", "hugo-2", "2.50", at(3));
      await club.db
        .em()
        .nativeUpdate(Participant, { ...club.scope, externalId: "gabi" }, { displayName: "Gabi R.", avatarUrl: "https://cdn.cassino.example.com/a/gabi.png" });

      const board = valid("Leaderboard", await getLeaderboard(club.db, club.scope, "hugo", "slots-semanal", { limit: 2, now: at(4) }));
      expect(board).toEqual({
        campaign_id: "slots-semanal",
        title: "Torneio semanal de slots",
        entries: [
          { rank: 1, display_name: "Gabi R.", avatar_url: "https://cdn.cassino.example.com/a/gabi.png", points: 120, is_me: false },
          { rank: 2, display_name: null, avatar_url: null, points: 120, is_me: false },
        ],
        me: { rank: 3, points: 82.5 },
      });
      expect((await getLeaderboard(club.db, club.scope, "hugo", "slots-semanal", { limit: 3, now: at(4) })).entries[2]).toEqual({
        rank: 3,
        display_name: null,
        avatar_url: null,
        points: 82.5,
        is_me: true,
      });
      // No points yet: no rank.
      expect((await getLeaderboard(club.db, club.scope, "ana", "slots-semanal", { limit: 20, now: at(4) })).me).toEqual({ rank: null, points: 0 });
    });

    it("lists the visible leaderboards: current and recently ended tournaments, and campaigns the participant has points in", async () => {
      await slots("joao", "joao-1", 10, at(0));
      await send({ participant: "joao", type: "bet.placed", id: "joao-crash", amount: 40, meta: { game_type: "crash" } }, at(1));
      await send({ participant: "joao", type: "deposit.confirmed", id: "joao-dep", amount: 75 }, at(2));
      const standings = valid("LeaderboardStandingList", await listMyLeaderboards(club.db, club.scope, "joao", at(3)));
      expect(standings.data).toEqual([
        // Ended 2026-11-15, still shown for 7 days; a bet after its end scores nothing in it (its own standings).
        {
          campaign_id: "aviator-relampago",
          title: "Corrida do Aviator",
          points: 0,
          rank: null,
          starts_at: "2026-11-10T03:00:00.000Z",
          ends_at: "2026-11-15T03:00:00.000Z",
        },
        {
          campaign_id: "slots-semanal",
          title: "Torneio semanal de slots",
          points: 10,
          rank: expect.any(Number),
          starts_at: "2026-11-16T03:00:00.000Z",
          ends_at: "2026-11-23T03:00:00.000Z",
        },
        // Points from a rule only, in no tournament: listed for whoever has points in it.
        { campaign_id: "ranking-depositos", title: "ranking-depositos", points: 75, rank: expect.any(Number), starts_at: null, ends_at: null },
      ]);
      // A tournament's entry is its standing in /v1/me/tournaments: one source of truth.
      const tournaments = await listMyTournaments(club.db, club.scope, "joao", { limit: 20, now: at(3) });
      for (const standing of standings.data.filter((entry) => entry.ends_at !== null)) {
        const edition = tournaments.data.find((candidate) => candidate.tournament_id === standing.campaign_id && candidate.starts_at === standing.starts_at)!;
        expect([standing.points, standing.rank]).toEqual([edition.score, edition.rank]);
        const board = await getLeaderboard(club.db, club.scope, "joao", standing.campaign_id, { limit: 20, now: at(3) });
        expect(board.me).toEqual({ points: edition.score, rank: edition.rank });
      }
      // Not started, disabled, or someone else's campaign: not listed, and not found.
      expect((await listMyLeaderboards(club.db, club.scope, "gabi", at(3))).data.map((standing) => standing.campaign_id)).not.toContain("ranking-depositos");
      for (const campaign of ["natal", "desativado", "nao-existe"]) {
        expect(await refusal(getLeaderboard(club.db, club.scope, "joao", campaign, { limit: 20, now: at(3) }))).toEqual({
          status: 404,
          code: "not_found",
          message: `Leaderboard "${campaign}" was not found.`,
        });
      }
      expect(await refusal(getLeaderboard(club.db, club.scope, "gabi", "ranking-depositos", { limit: 20, now: at(3) }))).toMatchObject({ status: 404 });

      // The ended tournament is shown until exactly 7 days after its end; the weekly one moves to its next edition.
      const lastVisible = new Date(Date.parse("2026-11-22T03:00:00Z") - 1);
      expect((await listMyLeaderboards(club.db, club.scope, "joao", lastVisible)).data.map((standing) => standing.campaign_id)).toContain("aviator-relampago");
      const nextWeek = await listMyLeaderboards(club.db, club.scope, "joao", new Date("2026-11-25T12:00:00Z"));
      expect(nextWeek.data.map((standing) => [standing.campaign_id, standing.starts_at, standing.ends_at])).toEqual([
        ["slots-semanal", "2026-11-23T03:00:00.000Z", "2026-11-30T03:00:00.000Z"],
        ["ranking-depositos", null, null],
      ]);
    });
  });
});
