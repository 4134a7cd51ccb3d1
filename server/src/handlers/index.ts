import type { Handlers } from "../../../generated/operations.js";
import type { RequestContext } from "../http/router.js";
import type { Services } from "../services.js";
import { clubHandlers } from "./club.js";
import { deliveryHandlers } from "./deliveries.js";
import { eventHandlers } from "./events.js";
import { growthHandlers } from "./growth.js";
import { configVersionHandlers } from "./config-versions.js";
import { gameHandlers } from "./games.js";
import { healthHandlers } from "./health.js";
import { meHandlers } from "./me.js";
import { participantHandlers } from "./participants.js";
import { consoleHandlers } from "./console.js";
import { tournamentHandlers } from "./tournaments.js";
import { wheelAuditHandlers } from "./wheel-audit.js";
import { backtestHandlers } from "./backtests.js";
import { testClockHandlers } from "./test-clocks.js";
import { keyHandlers } from "./keys.js";
import { codeHandlers } from "./codes.js";
import { staffHandlers } from "./staff.js";
import { eventLogHandlers } from "./event-log.js";
import { overviewHandlers } from "./overview.js";
import { webhookEndpointHandlers } from "./webhook-endpoints.js";

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
    ...eventLogHandlers(services),
    ...overviewHandlers(services),
    ...webhookEndpointHandlers(services),
  };
}
