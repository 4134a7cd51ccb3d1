import { WebhookEndpoint } from "../../server/src/db/entities/index.js";
import { newId } from "../../server/src/db/ids.js";
import type { Database } from "../../server/src/db/orm.js";
import type { Scope } from "../../server/src/db/scope.js";
import type { DatabaseClub } from "./club.js";
import { demoConfig } from "./club-config.js";

/** Every group of webhook events (an empty list would mean the default subscription, not all). */
const EVERY_GROUP = [
  "badge",
  "cashback",
  "checkin",
  "code",
  "currency",
  "level",
  "message",
  "mission",
  "participant",
  "referral",
  "reward",
  "store",
  "tier",
  "tournament",
  "wheel",
].map((group) => `${group}.*`);

/**
 * An enabled endpoint of `scope` taking every group of events: the
 * participant's writes leave out the webhooks no endpoint takes, so a test
 * reading them from the outbox subscribes first. Never delivered to.
 */
export async function subscribeToEverything(db: Database, scope: Scope): Promise<void> {
  const now = new Date();
  await db.em().insert(WebhookEndpoint, {
    id: newId("we"),
    ...scope,
    url: "http://127.0.0.1:9/unused",
    events: EVERY_GROUP,
    description: null,
    enabled: true,
    secret: "whsec_test",
    createdAt: now,
    updatedAt: now,
    deletedAt: null,
  });
}

/**
 * A new club of `club`'s database like the demo casino with one section replaced (`undefined` removes it),
 * subscribed to every event so that the tests can read its webhooks from the outbox.
 */
export async function subscribedClubWith(
  club: DatabaseClub,
  name: string,
  section: keyof ReturnType<typeof demoConfig>,
  value: Record<string, unknown> | undefined,
): Promise<Scope> {
  const config = demoConfig();
  if (value === undefined) delete config[section];
  else (config as Record<string, unknown>)[section] = value;
  const created = await club.newClub({ name, config, now: new Date("2026-11-01T12:00:00Z") });
  const scope: Scope = { clubId: created.clubId, env: "test" };
  await subscribeToEverything(club.db, scope);
  return scope;
}
