import { afterAll, beforeAll, expect, it } from "vitest";
import { AffiliateAttribution, Participant } from "../../../server/src/db/entities/index.js";
import type { Scope } from "../../../server/src/db/scope.js";
import { attributeAffiliate, createAffiliate, getAffiliate, listAffiliates, updateAffiliate } from "../../../server/src/usecases/referrals/affiliates.js";
import { ApiError } from "../../../server/src/usecases/shared/errors.js";
import { ingestEvent } from "../../../server/src/usecases/events/ingest.js";
import { upsertParticipant } from "../../../server/src/usecases/participants/participants.js";
import { describeEachDatabase } from "../../support/databases.js";
import { eventInput, PUBLIC_URL } from "../fixtures.js";
import { openTestClub, type DatabaseClub } from "../../support/club.js";
import { demoConfig } from "../../support/club-config.js";
import { expectResponse } from "../../support/contract.js";

const NOW = new Date("2026-11-21T15:00:00Z");
const LINK = (code: string) => `https://sortegrande.example/cadastro?aff=${code}`;

describeEachDatabase("affiliate use cases", (kind) => {
  let club: DatabaseClub;
  let scope: Scope;
  beforeAll(async () => {
    club = await openTestClub(kind);
    // A club of its own, so the list holds exactly the affiliates made here.
    const created = await club.newClub({ name: "Cassino Afiliados", config: demoConfig(), now: new Date("2026-09-01T12:00:00Z") });
    scope = { clubId: created.clubId, env: "test" };
  });
  afterAll(async () => {
    await club?.close();
  });

  const refusal = (status: number, code: string, message?: string) =>
    expect.objectContaining({ constructor: ApiError, status, code, ...(message === undefined ? {} : { message }) });
  const attribute = (participant: string, code: string, signupAt?: string) =>
    attributeAffiliate(club.db, scope, { participant_external_id: participant, code, ...(signupAt === undefined ? {} : { signup_at: signupAt }) }, NOW);

  it("creates affiliates with their link, refuses a code in use and finds them by id", async () => {
    const joao = await createAffiliate(club.db, scope, { code: "STREAMERJOAO", name: "João Streamer (Twitch)" }, new Date("2026-11-01T12:00:00Z"));
    expect(joao).toEqual({
      id: expect.stringMatching(/^aff_/),
      code: "STREAMERJOAO",
      name: "João Streamer (Twitch)",
      status: "active",
      link: LINK("STREAMERJOAO"),
      players: 0,
      created_at: "2026-11-01T12:00:00.000Z",
    });
    expectResponse("AffiliateAccounts_create", "201", joao);
    await expect(createAffiliate(club.db, scope, { code: "STREAMERJOAO", name: "Outro João" }, NOW)).rejects.toEqual(
      refusal(409, "affiliate_code_taken", 'Affiliate code "STREAMERJOAO" is already in use'),
    );
    expect(await getAffiliate(club.db, scope, joao.id)).toEqual(joao);
    await expect(getAffiliate(club.db, scope, "aff_nao_existe")).rejects.toEqual(refusal(404, "not_found"));
    await expect(getAffiliate(club.db, club.scope, joao.id)).rejects.toEqual(refusal(404, "not_found"));
  });

  it("lists newest first, filters by status and pages after an id", async () => {
    await createAffiliate(club.db, scope, { code: "BLOGDAMARIA", name: "Blog da Maria" }, new Date("2026-11-02T12:00:00Z"));
    await createAffiliate(club.db, scope, { code: "PARCEIRO", name: "Parceiro pausado", status: "paused" }, new Date("2026-11-03T12:00:00Z"));
    const all = await listAffiliates(club.db, scope, {});
    expect(all.data.map((affiliate) => affiliate.code)).toEqual(["PARCEIRO", "BLOGDAMARIA", "STREAMERJOAO"]);
    expect(all.has_more).toBe(false);
    expectResponse("AffiliateAccounts_list", "200", all);

    const first = await listAffiliates(club.db, scope, { limit: 1 });
    expect(first).toMatchObject({ data: [{ code: "PARCEIRO" }], has_more: true });
    const second = await listAffiliates(club.db, scope, { limit: 1, starting_after: first.data[0].id });
    expect(second).toMatchObject({ data: [{ code: "BLOGDAMARIA" }], has_more: true });
    const last = await listAffiliates(club.db, scope, { limit: 100, starting_after: second.data[0].id });
    expect(last).toMatchObject({ data: [{ code: "STREAMERJOAO" }], has_more: false });

    expect((await listAffiliates(club.db, scope, { status: "paused" })).data.map((affiliate) => affiliate.code)).toEqual(["PARCEIRO"]);
    await expect(listAffiliates(club.db, scope, { starting_after: "aff_nao_existe" })).rejects.toEqual(refusal(422, "validation_failed"));
  });

  it("attributes a new player, counting their deposits and bets since signup as backfilled", async () => {
    const signupAt = "2026-11-20T10:00:00Z";
    const send = (type: string, id: string, at: string) =>
      ingestEvent(club.db, scope, eventInput({ participant: "user_9120", type, id, amount: 50 }), { now: new Date(at), publicUrl: PUBLIC_URL });
    await send("deposit.confirmed", "dep-antes", "2026-11-20T09:59:59Z");
    await send("deposit.confirmed", "dep-1", "2026-11-20T10:00:00Z");
    await send("bet.placed", "bet-1", "2026-11-20T11:00:00Z");
    await send("session.started", "sess-1", "2026-11-20T11:30:00Z");
    await send("deposit.confirmed", "dep-1", "2026-11-20T12:00:00Z"); // a repeat is not another deposit

    const attribution = await attribute("user_9120", "STREAMERJOAO", signupAt);
    expect(attribution).toEqual({ id: expect.stringMatching(/^att_/), affiliate_link: LINK("STREAMERJOAO"), backfilled: 2 });
    expectResponse("Affiliates_attribute", "201", attribution);
    const stored = await club.db.em().findOneOrFail(AffiliateAttribution, { id: attribution.id });
    expect(stored.signupAt).toEqual(new Date(signupAt));
    const joao = (await listAffiliates(club.db, scope, {})).data.find((affiliate) => affiliate.code === "STREAMERJOAO")!;
    expect(joao.players).toBe(1);
  });

  it("creates an absent player and backfills nothing without signup_at", async () => {
    expect(await attribute("user_9121", "BLOGDAMARIA")).toMatchObject({ backfilled: 0 });
    const participant = await club.db.em().findOneOrFail(Participant, { ...scope, externalId: "user_9121" });
    expect(participant.createdAt).toEqual(NOW);
  });

  it("answers 404 for an unknown code and 409 affiliate_conflict when it cannot attribute", async () => {
    await expect(attribute("user_9122", "NAOEXISTE")).rejects.toEqual(refusal(404, "not_found", 'Affiliate code "NAOEXISTE" was not found.'));
    await expect(attribute("user_9122", "PARCEIRO")).rejects.toEqual(refusal(409, "affiliate_conflict", 'Affiliate "PARCEIRO" is paused'));
    await expect(attribute("user_9120", "BLOGDAMARIA")).rejects.toEqual(
      refusal(409, "affiliate_conflict", 'Participant "user_9120" already belongs to an affiliate'),
    );
  });

  it("accepts a signup exactly 30 days old and refuses one a second older", async () => {
    await expect(attribute("user_9130", "STREAMERJOAO", "2026-10-22T15:00:00Z")).resolves.toMatchObject({ backfilled: 0 });
    await expect(attribute("user_9131", "STREAMERJOAO", "2026-10-22T14:59:59Z")).rejects.toEqual(
      refusal(409, "affiliate_conflict", 'Participant "user_9131" is an old account (signed up more than 30 days ago)'),
    );
  });

  it("refuses a participant created more than 30 days ago, whatever signup_at says", async () => {
    await upsertParticipant(club.db, scope, { external_id: "user_antigo" }, new Date("2026-10-22T14:59:59Z"));
    await expect(attribute("user_antigo", "STREAMERJOAO", "2026-11-21T00:00:00Z")).rejects.toEqual(refusal(409, "affiliate_conflict"));
    await upsertParticipant(club.db, scope, { external_id: "user_recente" }, new Date("2026-10-22T15:00:00Z"));
    await expect(attribute("user_recente", "STREAMERJOAO")).resolves.toMatchObject({ backfilled: 0 });
  });

  it("pauses and resumes an affiliate; paused refuses new players, attributed players stay", async () => {
    const [joao] = (await listAffiliates(club.db, scope, { limit: 100 })).data.filter((affiliate) => affiliate.code === "STREAMERJOAO");
    const paused = await updateAffiliate(club.db, scope, joao.id, { status: "paused", name: "João (pausado)" }, NOW);
    expectResponse("AffiliateAccounts_update", "200", paused);
    expect(paused).toMatchObject({ status: "paused", name: "João (pausado)", code: "STREAMERJOAO", players: joao.players });
    await expect(attribute("user_9140", "STREAMERJOAO")).rejects.toEqual(refusal(409, "affiliate_conflict"));
    expect(await updateAffiliate(club.db, scope, joao.id, { status: "active" }, NOW)).toMatchObject({ status: "active", name: "João (pausado)" });
    await expect(attribute("user_9140", "STREAMERJOAO")).resolves.toMatchObject({ backfilled: 0 });
    await expect(updateAffiliate(club.db, scope, "aff_nao_existe", { status: "paused" }, NOW)).rejects.toEqual(refusal(404, "not_found"));
  });

  it("stores codes of 4 and 16 characters and names of 80, the contract's bounds", async () => {
    const name = "N".repeat(80);
    for (const code of ["AB12", "ABCDEFGHIJKLMNOP"]) {
      const affiliate = await createAffiliate(club.db, scope, { code, name }, NOW);
      expect(await getAffiliate(club.db, scope, affiliate.id)).toMatchObject({ code, name, link: LINK(code) });
      await expect(attribute(`user_${code}`, code)).resolves.toMatchObject({ affiliate_link: LINK(code) });
    }
  });

  it("lets only one of two concurrent attributions of the same player through", async () => {
    const results = await Promise.allSettled([attribute("user_9150", "STREAMERJOAO"), attribute("user_9150", "BLOGDAMARIA")]);
    expect(results.filter((result) => result.status === "fulfilled")).toHaveLength(1);
    for (const result of results) if (result.status === "rejected") expect(result.reason).toEqual(refusal(409, "affiliate_conflict"));
  });
});
