import { afterAll, beforeAll, expect, it } from "vitest";
import { schemaValidators } from "../../../generated/validators.js";
import { OutboxMessage, Participant, Referral } from "../../../server/src/db/entities/index.js";
import type { Scope } from "../../../server/src/db/scope.js";
import { ApiError } from "../../../server/src/usecases/shared/errors.js";
import { ingestEvent } from "../../../server/src/usecases/events/ingest.js";
import { loadBalances, upsertParticipant } from "../../../server/src/usecases/participants/participants.js";
import { getReferralState, registerReferral } from "../../../server/src/usecases/referrals/referrals.js";
import { describeEachDatabase } from "../../support/databases.js";
import { eventInput, PUBLIC_URL } from "../fixtures.js";
import { openTestClub, type DatabaseClub } from "../../support/club.js";
import { demoConfig } from "../../support/club-config.js";
import { expectResponse } from "../../support/contract.js";

/** Local noon in São Paulo (UTC−3) of `key`. */
const noon = (key: string) => new Date(`${key}T15:00:00Z`);

describeEachDatabase("referral use cases", (kind) => {
  let club: DatabaseClub;
  beforeAll(async () => {
    club = await openTestClub(kind);
  });
  afterAll(async () => {
    await club?.close();
  });

  /** A demo casino club with `referral` changed by `changes` (or removed). */
  async function referralClub(changes: Record<string, unknown> | null = {}): Promise<Scope> {
    const config = demoConfig();
    if (changes === null) delete config.referral;
    else config.referral = { ...(config.referral as Record<string, unknown>), ...changes };
    const created = await club.newClub({ name: "Cassino Indique", config, now: new Date("2026-11-01T12:00:00Z") });
    return { clubId: created.clubId, env: "test" };
  }

  async function join(scope: Scope, externalId: string, displayName: string | null = null): Promise<void> {
    await upsertParticipant(club.db, scope, { external_id: externalId, display_name: displayName }, new Date("2026-11-01T12:00:00Z"));
  }

  async function codeOf(scope: Scope, externalId: string): Promise<string> {
    return (await getReferralState(club.db, scope, externalId)).code;
  }

  async function balances(scope: Scope, externalId: string): Promise<Record<string, number>> {
    const participant = await club.db.em().findOneOrFail(Participant, { ...scope, externalId });
    return loadBalances(club.db.em(), participant.id);
  }

  /** An event sent through ingestion (which qualifies referrals); the effects the referral added to it. */
  async function send(scope: Scope, externalId: string, type: string, amount: number | undefined, now: Date) {
    const result = await ingestEvent(
      club.db,
      scope,
      eventInput({ participant: externalId, type, id: `${externalId}-${type}-${now.getTime()}-${amount}`, amount }),
      { now, publicUrl: PUBLIC_URL },
    );
    return result.effects.filter((effect) => "rule_id" in effect && effect.rule_id.startsWith("referral:"));
  }

  async function webhooks(scope: Scope, type: string): Promise<Record<string, unknown>[]> {
    const rows = await club.db.em().find(OutboxMessage, { clubId: scope.clubId, env: scope.env }, { orderBy: { createdAt: "asc" } });
    return rows
      .map((row) => row.payload)
      .filter((payload) => payload.type === type)
      .map((payload) => payload.data as Record<string, unknown>);
  }

  const refusal = (status: number, code: string, message?: string) =>
    expect.objectContaining({ constructor: ApiError, status, code, ...(message === undefined ? {} : { message }) });
  const register = (scope: Scope, referred: string, code: string, now = noon("2026-11-05")) =>
    registerReferral(club.db, scope, { referred_external_id: referred, code }, { now, publicUrl: PUBLIC_URL });

  it("gives each participant a stable code, created on first read, with the club's share link and program", async () => {
    await join(club.scope, "ana", "Ana Souza");
    const state = await getReferralState(club.db, club.scope, "ana");
    expectResponse("Me_getReferral", "200", state);
    expect(state).toEqual({
      enabled: true,
      code: expect.stringMatching(/^[0-9A-HJKMNP-TV-Z]{8}$/),
      link: `https://sortegrande.example/cadastro?ref=${state.code}`,
      referrerReward: "coins:500",
      referredReward: "coins:200",
      qualifyEvent: "deposit.confirmed",
      minAmount: 30,
      stats: { invited: 0, qualified: 0, earned: null },
      availableCents: 0,
      friends: [],
    });
    expect(await codeOf(club.scope, "ana")).toBe(state.code);
    expect((await club.db.em().findOneOrFail(Participant, { ...club.scope, externalId: "ana" })).referralCode).toBe(state.code);
    await expect(getReferralState(club.db, club.scope, "ninguem")).rejects.toEqual(refusal(404, "not_found"));
  });

  it("registers a new user as pending and qualifies on the first deposit of at least minAmount: both rewarded, referral.qualified sent", async () => {
    const code = await codeOf(club.scope, "ana");
    const registered = await register(club.scope, "bruno", code.toLowerCase());
    expect(registered).toEqual({ id: expect.stringMatching(/^rfl_/), status: "pending" });
    expectResponse("Referrals_register", "201", registered);
    await club.db.em().nativeUpdate(Participant, { ...club.scope, externalId: "bruno" }, { displayName: "Bruno Costa" });

    expect(await send(club.scope, "bruno", "deposit.confirmed", 29.99, noon("2026-11-06"))).toEqual([]);
    expect((await club.db.em().findOneOrFail(Referral, { id: registered.id })).status).toBe("pending");

    const effects = await send(club.scope, "bruno", "deposit.confirmed", 30, noon("2026-11-06"));
    expect(effects).toEqual([{ type: "currency_granted", currency: "coins", amount: 200, rule_id: `referral:${registered.id}` }]);
    expect((await balances(club.scope, "ana")).coins).toBe(500);
    const referral = await club.db.em().findOneOrFail(Referral, { id: registered.id });
    expect(referral).toMatchObject({ status: "qualified", qualifiedAt: noon("2026-11-06") });
    expect(await webhooks(club.scope, "referral.qualified")).toEqual([
      {
        referral_id: registered.id,
        referrer: { id: expect.stringMatching(/^par_/), external_id: "ana" },
        referred: { id: expect.stringMatching(/^par_/), external_id: "bruno" },
        rewards: { referrer: "coins:500", referred: "coins:200" },
      },
    ]);
    expect(await send(club.scope, "bruno", "deposit.confirmed", 100, noon("2026-11-07"))).toEqual([]);
    expect(await webhooks(club.scope, "referral.qualified")).toHaveLength(1);

    await register(club.scope, "carla", code, noon("2026-11-08"));
    const state = await getReferralState(club.db, club.scope, "ana");
    expect(state.stats).toEqual({ invited: 2, qualified: 1, earned: "500 moedas" });
    expectResponse("Me_getReferral", "200", state);
    expect(schemaValidators.ReferralQualifiedWebhookData((await webhooks(club.scope, "referral.qualified"))[0])).toBe(true);
    expect(state.friends).toEqual([
      { name: "Amigo", status: "pending", since: noon("2026-11-08").toISOString() },
      { name: "Bruno C.", status: "qualified", since: noon("2026-11-05").toISOString() },
    ]);
    // Bruno's own reward as a referred friend is not referral earnings of his.
    expect((await getReferralState(club.db, club.scope, "bruno")).stats).toEqual({ invited: 0, qualified: 0, earned: null });
  });

  it("answers 404 for an unknown code and 409 referral_not_counted for each case that does not count", async () => {
    const code = await codeOf(club.scope, "ana");
    await expect(register(club.scope, "novo", "XPTO9")).rejects.toEqual(refusal(404, "not_found"));
    await expect(register(club.scope, "ana", code)).rejects.toEqual(refusal(409, "referral_not_counted", "A participant cannot use their own referral code"));
    await expect(register(club.scope, "bruno", code)).rejects.toEqual(refusal(409, "referral_not_counted", "The participant was already referred"));
    await ingestEvent(club.db, club.scope, eventInput({ participant: "veterano", type: "session.started", id: "sess-veterano" }), {
      now: noon("2026-11-05"),
      publicUrl: PUBLIC_URL,
    });
    await expect(register(club.scope, "veterano", code)).rejects.toEqual(
      refusal(409, "referral_not_counted", "The participant is an existing player, not a new user"),
    );
    // A participant created at signup (e.g. by issuing a token) without events still counts.
    await join(club.scope, "recem-chegado");
    await expect(register(club.scope, "recem-chegado", code)).resolves.toMatchObject({ status: "pending" });
  });

  it("counts dailyLimit referrals per referrer per club day: 1 passes, the 2nd is refused, the next day counts again", async () => {
    const scope = await referralClub({ dailyLimit: 1 });
    await join(scope, "dora");
    const code = await codeOf(scope, "dora");
    await register(scope, "amigo-1", code, new Date("2026-11-06T02:00:00Z"));
    await expect(register(scope, "amigo-2", code, new Date("2026-11-06T02:59:59Z"))).rejects.toEqual(
      refusal(409, "referral_not_counted", "The referrer reached the limit of 1 referrals today"),
    );
    // Midnight in São Paulo starts a new club day.
    await expect(register(scope, "amigo-2", code, new Date("2026-11-06T03:00:00Z"))).resolves.toMatchObject({ status: "pending" });
  });

  it("accepts dailyLimit 100 referrals in a day and refuses the 101st", async () => {
    const scope = await referralClub({ dailyLimit: 100 });
    await join(scope, "eva");
    const code = await codeOf(scope, "eva");
    for (let i = 1; i <= 100; i++) await register(scope, `amigo-${i}`, code);
    await expect(register(scope, "amigo-101", code)).rejects.toEqual(refusal(409, "referral_not_counted"));
    expect((await getReferralState(club.db, scope, "eva")).stats.invited).toBe(100);
  });

  it("qualifies at once when the club qualifies on signup, creating the referred participant", async () => {
    const scope = await referralClub({ qualifyEvent: "signup", referredReward: null });
    await join(scope, "fabio");
    const registered = await register(scope, "gaby", await codeOf(scope, "fabio"));
    expect(registered.status).toBe("qualified");
    expect((await balances(scope, "fabio")).coins).toBe(500);
    expect(await balances(scope, "gaby")).toEqual({});
    expect(await webhooks(scope, "participant.created")).toEqual(
      expect.arrayContaining([expect.objectContaining({ participant: expect.objectContaining({ external_id: "gaby" }) })]),
    );
    expect(await webhooks(scope, "referral.qualified")).toEqual([expect.objectContaining({ rewards: { referrer: "coins:500", referred: null } })]);
  });

  it("reports cash referral rewards still waiting for their delivery in availableCents", async () => {
    const scope = await referralClub({ referrerReward: "reward:store-cash-5", qualifyEvent: "signup" });
    await join(scope, "hugo");
    const code = await codeOf(scope, "hugo");
    await register(scope, "iris", code);
    await register(scope, "joao", code);
    const state = await getReferralState(club.db, scope, "hugo");
    expect(state.availableCents).toBe(1000);
    expect(state.stats).toEqual({ invited: 2, qualified: 2, earned: "2× R$ 5 na carteira" });
  });

  it("refuses registrations while the program is disabled or absent, and shows it disabled", async () => {
    for (const changes of [{ enabled: false }, null]) {
      const scope = await referralClub(changes);
      await join(scope, "kiko");
      const state = await getReferralState(club.db, scope, "kiko");
      expect(state.enabled).toBe(false);
      await expect(register(scope, "lia", state.code)).rejects.toEqual(refusal(409, "referral_not_counted", "The club's referral program is disabled"));
      if (changes === null) expect(state).toMatchObject({ link: null, referrerReward: null, referredReward: null });
    }
  });
});
