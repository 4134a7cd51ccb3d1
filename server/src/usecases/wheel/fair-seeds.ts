import { randomBytes } from "node:crypto";
import type { SqlEntityManager } from "@mikro-orm/knex";
import type { components } from "../../../../generated/types.js";
import { seedHash } from "../../engine/wheel/fair.js";
import { Participant, WheelSeed, WheelSpin } from "../../db/entities/index.js";
import { newId } from "../../db/ids.js";
import type { Database } from "../../db/orm.js";
import type { Scope } from "../../db/scope.js";
import { validationFailed } from "../shared/errors.js";
import { olderThan, pageOf } from "../shared/paging.js";
import { lockParticipant } from "../evaluation/index.js";
import { participantNotFound } from "../participants/index.js";

/*
 * The provably fair wheel's seed pairs (commit–reveal; the mapping from seeds
 * to a slice is the pure engine's, server/src/engine/wheel/fair.ts). A pair is
 * made on first need, under the participant's lock, so a participant has at
 * most one active pair.
 */

type Schemas = components["schemas"];
export type WheelFairness = Schemas["WheelFairness"];
export type WheelSeedRotated = Schemas["WheelSeedRotated"];
export type WheelSpinAudit = Schemas["WheelSpinAudit"];

/** 256 bits from the operating system's CSPRNG, as 64 hex characters. */
const newServerSeed = () => randomBytes(32).toString("hex");
const newClientSeed = () => randomBytes(8).toString("hex");

function seedRow(scope: Scope, participantId: string, clientSeed: string, now: Date): WheelSeed {
  const serverSeed = newServerSeed();
  return {
    id: newId("wsd"),
    ...scope,
    participantId,
    serverSeed,
    serverSeedHash: seedHash(serverSeed),
    clientSeed,
    nextNonce: 0,
    createdAt: now,
    revealedAt: null,
  };
}

/** The newest unrevealed pair: a merge (rename with `merge`) can leave a participant two, and it draws from the newest. */
function newestActive(em: SqlEntityManager, participantId: string): Promise<WheelSeed | null> {
  return em.findOne(WheelSeed, { participantId, revealedAt: null }, { orderBy: { createdAt: "desc", id: "desc" }, disableIdentityMap: true });
}

/** The participant's active pair, made when it has none. Call holding the participant's lock. */
export async function activeSeed(em: SqlEntityManager, scope: Scope, participantId: string, now: Date): Promise<WheelSeed> {
  const active = await newestActive(em, participantId);
  if (active) return active;
  const row = seedRow(scope, participantId, newClientSeed(), now);
  await em.insert(WheelSeed, row);
  return row;
}

/** Uses the pair's next nonce (call holding the participant's lock). */
export async function consumeNonce(em: SqlEntityManager, seed: WheelSeed): Promise<number> {
  await em.nativeUpdate(WheelSeed, { id: seed.id }, { nextNonce: seed.nextNonce + 1 });
  return seed.nextNonce;
}

export function fairnessOf(seed: WheelSeed): WheelFairness {
  return { server_seed_hash: seed.serverSeedHash, client_seed: seed.clientSeed, next_nonce: seed.nextNonce };
}

/** The commitment GET /v1/me/wheel shows (making the participant's first pair). */
export async function currentFairness(db: Database, scope: Scope, participantId: string, now: Date): Promise<WheelFairness> {
  return db.em().transactional(async (em) => {
    await lockParticipant(em, { ...scope, id: participantId });
    return fairnessOf(await activeSeed(em, scope, participantId, now));
  });
}

/** POST /v1/me/wheel/seed: reveals the active pair's server seed and commits to a new pair with `clientSeed`. */
export async function rotateWheelSeed(db: Database, scope: Scope, externalId: string, clientSeed: string | undefined, now: Date): Promise<WheelSeedRotated> {
  return db.em().transactional(async (em) => {
    const participant = await lockParticipant(em, { ...scope, externalId });
    if (!participant) throw participantNotFound(externalId);
    const active = await newestActive(em, participant.id);
    // Every unrevealed pair is revealed, not only the one in use (a merged participant's pair comes along).
    if (active) await em.nativeUpdate(WheelSeed, { participantId: participant.id, revealedAt: null }, { revealedAt: now });
    const next = seedRow(scope, participant.id, clientSeed ?? newClientSeed(), now);
    await em.insert(WheelSeed, next);
    return {
      revealed: active
        ? { server_seed: active.serverSeed, server_seed_hash: active.serverSeedHash, client_seed: active.clientSeed, spins: active.nextNonce }
        : null,
      next: fairnessOf(next),
    };
  });
}

export interface AuditQuery {
  limit?: number;
  starting_after?: string;
}

/** The participant's provably fair spins, most recent first, with their seeds (the server seed once revealed). */
export async function listFairSpins(db: Database, scope: Scope, externalId: string, query: AuditQuery): Promise<{ data: WheelSpinAudit[]; has_more: boolean }> {
  const em = db.em();
  const limit = query.limit ?? 20;
  const participant = await em.findOne(Participant, { ...scope, externalId }, { fields: ["id"] });
  if (!participant) throw participantNotFound(externalId);
  const where: Record<string, unknown> = { ...scope, participantId: participant.id, seedId: { $ne: null } };
  if (query.starting_after) {
    const after = await em.findOne(WheelSpin, { ...where, id: query.starting_after }, { fields: ["id", "spunAt"] });
    if (!after) throw validationFailed("query.starting_after is not a spin of this participant");
    Object.assign(where, olderThan("spunAt", after));
  }
  const rows = await em.find(WheelSpin, where, { orderBy: [{ spunAt: "desc" }, { id: "desc" }], limit: limit + 1, disableIdentityMap: true });
  const seeds = new Map(
    (await em.find(WheelSeed, { id: { $in: [...new Set(rows.map((row) => row.seedId!))] } }, { disableIdentityMap: true })).map((seed) => [seed.id, seed]),
  );
  return pageOf(rows, limit, (row) => {
    const seed = seeds.get(row.seedId!)!;
    return {
      spin_id: row.id,
      spun_at: row.spunAt.toISOString(),
      index: row.sliceIndex,
      slice_id: row.sliceId,
      probability_version: row.probabilityVersion,
      weights: row.weights ?? [],
      server_seed_hash: seed.serverSeedHash,
      server_seed: seed.revealedAt === null ? null : seed.serverSeed,
      client_seed: seed.clientSeed,
      nonce: row.nonce!,
    };
  });
}
