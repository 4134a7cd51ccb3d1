import { issueParticipantToken } from "../http/tokens.js";
import type { Services } from "../services.js";
import { ingestEvent } from "../usecases/events/index.js";
import { upsertParticipant } from "../usecases/participants/index.js";
import type { DemoClub } from "./ensure-demo-club.js";

/** The participant the demo page shows. */
export const DEMO_PARTICIPANT = "demo_ana";

/**
 * A 15-minute token for the demo participant of the demo club (test
 * environment). The first time, a few facts give it something to show: a
 * sign-up, a deposit and some bets (fixed event ids, so repeats are duplicates).
 */
export async function demoParticipantToken(services: Services, demo: DemoClub): Promise<string> {
  const scope = { clubId: demo.club_id, env: "test" as const };
  const now = services.clock.now();
  const opts = { now, publicUrl: services.settings.publicUrl };
  const facts = [
    { id: "demo_signup", type: "user.signed_up" },
    { id: "demo_deposit_1", type: "deposit.confirmed", amount: "150.00" },
    { id: "demo_bet_1", type: "bet.placed", amount: "120.00" },
    { id: "demo_bet_2", type: "bet.placed", amount: "80.00" },
  ];
  await upsertParticipant(services.db, scope, { external_id: DEMO_PARTICIPANT, display_name: "Ana (demo)" }, now);
  for (const fact of facts) {
    await ingestEvent(services.db, scope, { participant: DEMO_PARTICIPANT, currency: "BRL", meta: {}, ...fact } as Parameters<typeof ingestEvent>[2], opts);
  }
  const secret = await services.auth.signingSecret(scope.clubId, scope.env);
  if (!secret) throw new Error("the demo club has no participant-token signing secret");
  const { token } = await issueParticipantToken(secret, { ...scope, externalId: DEMO_PARTICIPANT }, 900, now);
  return token;
}
