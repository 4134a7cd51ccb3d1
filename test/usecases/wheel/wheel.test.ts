import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { OutboxMessage, Participant, WheelSpin } from "../../../server/src/db/entities/index.js";
import type { Scope } from "../../../server/src/db/scope.js";
import { ApiError } from "../../../server/src/usecases/shared/errors.js";
import { loadBalances, upsertParticipant } from "../../../server/src/usecases/participants/participants.js";
import { cryptoRandom, getWheelState, spinWheel } from "../../../server/src/usecases/wheel/wheel.js";
import { describeEachDatabase } from "../../support/databases.js";
import { PUBLIC_URL } from "../fixtures.js";
import { openTestClub, type DatabaseClub } from "../../support/club.js";
import { expectResponse } from "../../support/contract.js";
import { subscribedClubWith, subscribeToEverything } from "../../support/endpoints.js";

/** Local noon in São Paulo (UTC−3) of `key`. */
const noon = (key: string) => new Date(`${key}T15:00:00Z`);

/** A random source that always draws `value`: with the demo weights 40/20/15/5/20 (sum 100), value v lands on the slice holding v × 100. */
const draw = (value: number) => () => value;

describe("cryptoRandom", () => {
  it("draws in [0, 1)", () => {
    for (let i = 0; i < 1000; i++) {
      const value = cryptoRandom();
      expect(value).toBeGreaterThanOrEqual(0);
      expect(value).toBeLessThan(1);
    }
  });
});

describeEachDatabase("wheel use cases", (kind) => {
  let club: DatabaseClub;
  beforeAll(async () => {
    club = await openTestClub(kind);
    // The tests read the webhooks from the outbox: something has to take them.
    await subscribeToEverything(club.db, club.scope);
  });
  afterAll(async () => {
    await club?.close();
  });

  const clubWith = (wheel: Record<string, unknown> | undefined) => subscribedClubWith(club, "Cassino Roleta", "wheel", wheel);

  async function join(scope: Scope, externalId: string): Promise<void> {
    await upsertParticipant(club.db, scope, { external_id: externalId }, new Date("2026-11-01T12:00:00Z"));
  }

  async function webhooks(scope: Scope, type: string): Promise<Record<string, unknown>[]> {
    const rows = await club.db.em().find(OutboxMessage, { clubId: scope.clubId, env: scope.env }, { orderBy: { createdAt: "asc" } });
    return rows
      .map((row) => row.payload)
      .filter((payload) => payload.type === type)
      .map((payload) => payload.data as Record<string, unknown>);
  }

  const refusal = (status: number, code: string) => expect.objectContaining({ constructor: ApiError, status, code });
  const slices = (weights: number[], extra: Record<string, unknown>[] = []) => [
    ...weights.map((weight, index) => ({ id: `moedas-${index}`, label: `${index} moedas`, reward: `coins:${index + 1}`, weight })),
    ...extra,
  ];

  it("answers 404 for a participant that does not exist", async () => {
    await expect(getWheelState(club.db, club.scope, "ninguem", noon("2026-11-05"))).rejects.toEqual(refusal(404, "not_found"));
    await expect(spinWheel(club.db, club.scope, "ninguem", { now: noon("2026-11-05"), random: draw(0), publicUrl: PUBLIC_URL })).rejects.toEqual(
      refusal(404, "not_found"),
    );
  });

  it("shows the demo wheel without its odds", async () => {
    await join(club.scope, "ana");
    const state = await getWheelState(club.db, club.scope, "ana", noon("2026-11-05"));
    expectResponse("Me_getWheel", "200", state);
    expect(state).toMatchObject({ style: "classica", titleLeft: "ROLETA", titleRight: "GRATUITA", spinsLeft: 1, nextSpinAt: null });
    expect(state.slices).toHaveLength(5);
    expect(state.slices[2]).toEqual({
      id: "giros-10",
      label: "10 giros",
      reward: "free-spins-10",
      payload: { kind: "free_spins", spins: 10, game: "Gates of Olympus", game_code: "vs20olympgate" },
    });
    for (const slice of state.slices) expect(slice).not.toHaveProperty("weight");
  });

  it("spins once a day: grants the slice, records the version, sends wheel.spun, then 409 until midnight", async () => {
    const now = noon("2026-11-05");
    const spin = await spinWheel(club.db, club.scope, "ana", { now, random: draw(0.6), publicUrl: PUBLIC_URL });
    expectResponse("Me_spinWheel", "200", spin);
    expect(spin).toMatchObject({
      index: 2,
      sliceId: "giros-10",
      label: "10 giros",
      reward: "free-spins-10",
      rewardId: expect.stringMatching(/^rwd_/),
      prize: { kind: "free_spins", spins: 10, game: "Gates of Olympus", game_code: "vs20olympgate" },
      spinsLeft: 0,
      nextSpinAt: "2026-11-06T03:00:00.000Z",
      probabilityVersion: 1,
      duplicate: false,
    });
    expect(spin.effects).toEqual([
      {
        type: "reward_granted",
        reward_code: "free-spins-10",
        rule_id: `wheel:${spin.spinId}`,
        reward_id: spin.rewardId,
        delivery_id: expect.stringMatching(/^dlv_/),
      },
    ]);
    const stored = await club.db.em().findOneOrFail(WheelSpin, { id: spin.spinId });
    expect(stored).toMatchObject({ dayKey: "2026-11-05", sliceId: "giros-10", sliceIndex: 2, probabilityVersion: 1, rewardCode: "free-spins-10" });
    expect(await webhooks(club.scope, "wheel.spun")).toEqual([
      {
        participant: { id: expect.stringMatching(/^par_/), external_id: "ana" },
        spin_id: spin.spinId,
        slice_id: "giros-10",
        label: "10 giros",
        reward_code: "free-spins-10",
        probability_version: 1,
      },
    ]);
    const [requested] = await webhooks(club.scope, "reward.delivery_requested");
    expect(requested).toMatchObject({ source: `wheel:${spin.spinId}`, reward: { payload: { kind: "free_spins", spins: 10, game_code: "vs20olympgate" } } });

    await expect(spinWheel(club.db, club.scope, "ana", { now: new Date("2026-11-06T02:59:59Z"), random: draw(0), publicUrl: PUBLIC_URL })).rejects.toEqual(
      refusal(409, "no_spins_left"),
    );
    expect(await getWheelState(club.db, club.scope, "ana", now)).toMatchObject({ spinsLeft: 0, nextSpinAt: "2026-11-06T03:00:00.000Z" });
    const tomorrow = await spinWheel(club.db, club.scope, "ana", { now: new Date("2026-11-06T03:00:00Z"), random: draw(0), publicUrl: PUBLIC_URL });
    expect(tomorrow).toMatchObject({ sliceId: "coins-50", reward: "coins-50", spinsLeft: 0 });
  });

  it("grants nothing on a slice without reward", async () => {
    await join(club.scope, "bruno");
    const spin = await spinWheel(club.db, club.scope, "bruno", { now: noon("2026-11-05"), random: draw(0.99), publicUrl: PUBLIC_URL });
    expect(spin).toMatchObject({ sliceId: "nada", reward: null, rewardId: null, effects: [] });
    expect(spin).not.toHaveProperty("prize");
    expectResponse("Me_spinWheel", "200", spin);
  });

  it("answers a repeated Idempotency-Key with the first spin and spins nothing", async () => {
    await join(club.scope, "carla");
    const now = noon("2026-11-07");
    const first = await spinWheel(club.db, club.scope, "carla", { idempotencyKey: "giro-carla-20261107", now, random: draw(0.3), publicUrl: PUBLIC_URL });
    const again = await spinWheel(club.db, club.scope, "carla", { idempotencyKey: "giro-carla-20261107", now, random: draw(0.9), publicUrl: PUBLIC_URL });
    expect(again).toEqual({ ...first, duplicate: true });
    expectResponse("Me_spinWheel", "200", again);
    expect(await club.db.em().count(WheelSpin, { idempotencyKey: "giro-carla-20261107" })).toBe(1);
    expect((await webhooks(club.scope, "wheel.spun")).filter((data) => data.spin_id === first.spinId)).toHaveLength(1);

    await join(club.scope, "dora");
    await expect(
      spinWheel(club.db, club.scope, "dora", { idempotencyKey: "giro-carla-20261107", now, random: draw(0), publicUrl: PUBLIC_URL }),
    ).rejects.toEqual(refusal(409, "conflict"));
  });

  it("keeps Idempotency-Keys of 8 and 120 characters, the contract's bounds", async () => {
    for (const [participant, key] of [
      ["kaka", "k".repeat(8)],
      ["lara", "k".repeat(120)],
    ]) {
      await join(club.scope, participant);
      const first = await spinWheel(club.db, club.scope, participant, { idempotencyKey: key, now: noon("2026-11-09"), random: draw(0), publicUrl: PUBLIC_URL });
      const again = await spinWheel(club.db, club.scope, participant, { idempotencyKey: key, now: noon("2026-11-09"), random: draw(0), publicUrl: PUBLIC_URL });
      expect(again).toEqual({ ...first, duplicate: true });
    }
  });

  it("serialises concurrent spins: one spin a day, five tries", async () => {
    await join(club.scope, "eva");
    const results = await Promise.allSettled(
      Array.from({ length: 5 }, () => spinWheel(club.db, club.scope, "eva", { now: noon("2026-11-08"), random: cryptoRandom, publicUrl: PUBLIC_URL })),
    );
    expect(results.filter((result) => result.status === "fulfilled")).toHaveLength(1);
    for (const result of results) if (result.status === "rejected") expect(result.reason).toEqual(refusal(409, "no_spins_left"));
  });

  it("gives a participant's tier quantity and lays the prize over the reward's payload", async () => {
    const scope = await clubWith({
      slices: [
        {
          id: "giros",
          label: "Giros",
          reward: "free-spins-10",
          payload: { kind: "free_spins", spins: 10, game_code: "vs20olympgate" },
          tierQty: { bronze: 25 },
        },
        { id: "moedas", label: "Moedas", reward: "coins:50", weight: 0, tierQty: { bronze: 80 } },
        ...slices([0, 0]),
      ],
    });
    await join(scope, "fabio");
    const spin = await spinWheel(club.db, scope, "fabio", { now: noon("2026-11-05"), random: draw(0.5), publicUrl: PUBLIC_URL });
    expect(spin.prize).toEqual({ kind: "free_spins", spins: 25, game_code: "vs20olympgate" });
    const [requested] = await webhooks(scope, "reward.delivery_requested");
    expect((requested.reward as Record<string, unknown>).payload).toEqual({
      kind: "free_spins",
      spins: 25,
      game: "Gates of Olympus",
      game_code: "vs20olympgate",
    });
  });

  it("uses the tier quantity as the number of a currency slice", async () => {
    const scope = await clubWith({ slices: [{ id: "moedas", label: "Moedas", reward: "coins:50", tierQty: { bronze: 80 } }, ...slices([0, 0, 0])] });
    await join(scope, "gil");
    const spin = await spinWheel(club.db, scope, "gil", { now: noon("2026-11-05"), random: draw(0.5), publicUrl: PUBLIC_URL });
    expect(spin).toMatchObject({
      reward: "coins:50",
      rewardId: null,
      effects: [{ type: "currency_granted", currency: "coins", amount: 80, rule_id: `wheel:${spin.spinId}` }],
    });
    const participant = await club.db.em().findOneOrFail(Participant, { ...scope, externalId: "gil" });
    expect(await loadBalances(club.db.em(), participant.id)).toEqual({ coins: 80 });
  });

  it("spinsPerDay 0 gives no spin; spinsPerDay 50 gives the 50th and refuses the 51st", async () => {
    const none = await clubWith({ spinsPerDay: 0, slices: slices([1, 1, 1, 1]) });
    await join(none, "hugo");
    expect(await getWheelState(club.db, none, "hugo", noon("2026-11-05"))).toMatchObject({ spinsLeft: 0, nextSpinAt: null });
    await expect(spinWheel(club.db, none, "hugo", { now: noon("2026-11-05"), random: draw(0), publicUrl: PUBLIC_URL })).rejects.toEqual(
      refusal(409, "no_spins_left"),
    );

    const fifty = await clubWith({ spinsPerDay: 50, probabilityVersion: 7, slices: slices([1, 1, 1, 1]) });
    await join(fifty, "iris");
    let last;
    for (let i = 0; i < 50; i++) last = await spinWheel(club.db, fifty, "iris", { now: noon("2026-11-05"), random: cryptoRandom, publicUrl: PUBLIC_URL });
    expect(last).toMatchObject({ spinsLeft: 0, probabilityVersion: 7, nextSpinAt: "2026-11-06T03:00:00.000Z" });
    await expect(spinWheel(club.db, fifty, "iris", { now: noon("2026-11-05"), random: cryptoRandom, publicUrl: PUBLIC_URL })).rejects.toEqual(
      refusal(409, "no_spins_left"),
    );
    expect(await club.db.em().count(WheelSpin, { clubId: fifty.clubId, probabilityVersion: 7 })).toBe(50);
  });

  it("answers 409 wheel_disabled for a disabled wheel, a club without one, and a wheel no slice can win", async () => {
    for (const wheel of [{ enabled: false, slices: slices([1, 1, 1, 1]) }, undefined, { slices: slices([0, 0, 0, 0]) }]) {
      const scope = await clubWith(wheel);
      await join(scope, "joao");
      await expect(spinWheel(club.db, scope, "joao", { now: noon("2026-11-05"), random: draw(0), publicUrl: PUBLIC_URL })).rejects.toEqual(
        refusal(409, "wheel_disabled"),
      );
    }
    const scope = await clubWith(undefined);
    await join(scope, "joao");
    expect(await getWheelState(club.db, scope, "joao", noon("2026-11-05"))).toEqual({
      style: "classica",
      titleLeft: "ROLETA",
      titleRight: "GRATUITA",
      slices: [],
      spinsLeft: 0,
      nextSpinAt: null,
      fairness: { server_seed_hash: expect.stringMatching(/^[0-9a-f]{64}$/), client_seed: expect.any(String), next_nonce: 0 },
    });
  });

  it("lets exactly spinsPerDay of 20 spins sent at once pass, the others 409 no_spins_left, each audited with its own nonce", async () => {
    const scope = await clubWith({ spinsPerDay: 3, slices: slices([1, 1, 1, 1]) });
    await join(scope, "kai");
    const spin = () => spinWheel(club.db, scope, "kai", { now: noon("2026-11-05"), publicUrl: PUBLIC_URL });
    const results = await Promise.allSettled(Array.from({ length: 20 }, spin));
    const passed = results.flatMap((result) => (result.status === "fulfilled" ? [result.value] : []));
    expect(passed).toHaveLength(3);
    expect(passed.map((spun) => spun.spinsLeft).sort()).toEqual([0, 1, 2]);
    expect(passed.map((spun) => spun.fairness?.nonce).sort()).toEqual([0, 1, 2]);
    for (const result of results) if (result.status === "rejected") expect(result.reason).toEqual(refusal(409, "no_spins_left"));
    expect(await club.db.em().count(WheelSpin, { clubId: scope.clubId })).toBe(3);
    expect(await webhooks(scope, "wheel.spun")).toHaveLength(3);
  });
});
