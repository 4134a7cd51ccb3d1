import type { Handlers } from "../../../generated/operations.js";
import type { RequestContext } from "../http/router.js";
import type { Services } from "../services.js";
import { clubHandlers } from "./cashback.js";
import { deliveryHandlers } from "./deliveries.js";
import { eventHandlers } from "./events.js";
import { growthHandlers } from "./affiliates.js";
import { configVersionHandlers } from "./config.js";
import { gameHandlers } from "./games.js";
import { healthHandlers } from "./health.js";
import { meHandlers } from "./me.js";
import { participantHandlers } from "./participants.js";
import { consoleHandlers } from "./webhook-endpoints.js";
import { tournamentHandlers } from "./tournaments.js";
import { wheelAuditHandlers } from "./wheel-audit.js";
import { backtestHandlers } from "./backtests.js";
import { testClockHandlers } from "./test-clocks.js";
import { keyHandlers } from "./api-keys.js";
import { codeHandlers } from "./codes.js";
import { staffHandlers } from "./staff.js";

/**
 * Every contracted operation's handler. The `Handlers` type comes from the
 * contract: tsc fails here while an operation has no handler.
 */
export function createHandlers(services: Services): Handlers<RequestContext> {
  return {
    ...healthHandlers(services),
    ...participantHandlers(services),
    ...clubHandlers(services),
    ...configVersionHandlers(services),
    ...gameHandlers(services),
    ...meHandlers(services),
    ...eventHandlers(services),
    ...deliveryHandlers(services),
    ...growthHandlers(services),
    ...consoleHandlers(services),
    ...tournamentHandlers(services),
    ...wheelAuditHandlers(services),
    ...backtestHandlers(services),
    ...testClockHandlers(services),
    ...keyHandlers(services),
    ...codeHandlers(services),
    ...staffHandlers(services),
  };
}
