import type { Handlers } from "../../../generated/operations.js";
import type { RequestContext } from "../http/router.js";
import type { Services } from "../services.js";
import { affiliateHandlers } from "./affiliates.js";
import { apiKeyHandlers } from "./api-keys.js";
import { auditLogHandlers } from "./audit-log.js";
import { cashbackHandlers } from "./cashback.js";
import { codeHandlers } from "./codes.js";
import { configHandlers } from "./config.js";
import { deliveryHandlers } from "./deliveries.js";
import { eventLogHandlers } from "./event-log.js";
import { eventHandlers } from "./events.js";
import { gameHandlers } from "./games.js";
import { healthHandlers } from "./health.js";
import { meHandlers } from "./me.js";
import { participantHandlers } from "./participants.js";
import { redemptionHandlers } from "./redemptions.js";
import { referralHandlers } from "./referrals.js";
import { staffHandlers } from "./staff.js";
import { testClockHandlers } from "./test-clocks.js";
import { tokenSecretHandlers } from "./token-secret.js";
import { tournamentHandlers } from "./tournaments.js";
import { warningHandlers } from "./warnings.js";
import { overviewHandlers } from "./overview.js";
import { webhookEndpointHandlers } from "./webhook-endpoints.js";

/**
 * Every contracted operation's handler, one file per operation group (the
 * contract's tags: `Config` → config.ts, `Webhook endpoints` →
 * webhook-endpoints.ts). The `Handlers` type comes from the contract: tsc
 * fails here while an operation has no handler.
 */
export function createHandlers(services: Services): Handlers<RequestContext> {
  return {
    ...affiliateHandlers(services),
    ...auditLogHandlers(services),
    ...cashbackHandlers(services),
    ...codeHandlers(services),
    ...configHandlers(services),
    ...deliveryHandlers(services),
    ...eventHandlers(services),
    ...eventLogHandlers(services),
    ...gameHandlers(services),
    ...healthHandlers(services),
    ...apiKeyHandlers(services),
    ...meHandlers(services),
    ...participantHandlers(services),
    ...redemptionHandlers(services),
    ...referralHandlers(services),
    ...staffHandlers(services),
    ...testClockHandlers(services),
    ...tokenSecretHandlers(services),
    ...tournamentHandlers(services),
    ...warningHandlers(services),
    ...overviewHandlers(services),
    ...webhookEndpointHandlers(services),
  };
}
