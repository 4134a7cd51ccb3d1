import type { SqlEntityManager } from "@mikro-orm/knex";
import type { ClubConfig } from "../../engine/config.js";
import { Participant } from "../../db/entities/index.js";
import type { Database } from "../../db/orm.js";
import type { Scope } from "../../db/scope.js";
import { requirePublishedConfig } from "../club/index.js";
import { clubTimeZone } from "../evaluation/index.js";
import { participantNotFound } from "./participants.js";

/*
 * The participant surface (`/v1/me/*`): what one participant sees and does.
 * `externalId` comes from the participant token or `X-Participant`; a
 * participant that does not exist is 404 (the surface never creates one).
 */

export interface Me {
  participant: Participant;
  config: ClubConfig;
  timeZone: string;
}

/** The calling participant with the published configuration, or 404. */
export async function findMe(em: SqlEntityManager, db: Database, scope: Scope, externalId: string): Promise<Me> {
  const { config } = await requirePublishedConfig(db, scope);
  const participant = await em.findOne(Participant, { ...scope, externalId });
  if (!participant) throw participantNotFound(externalId);
  return { participant, config, timeZone: clubTimeZone(config) };
}
