import type { OperationId } from "../../../generated/operations.js";
import { ApiError } from "../usecases/errors.js";
import type { HandlerSet } from "./types.js";

/**
 * Contracted operations whose use cases have not landed yet. They answer 501
 * `not_implemented` instead of pretending; each one leaves this list in the
 * change that implements it (see the open issues).
 */
export const PENDING = [
  "AffiliateAccounts_create",
  "AffiliateAccounts_get",
  "AffiliateAccounts_list",
  "AffiliateAccounts_update",
  "Affiliates_attribute",
  "Deliveries_confirm",
  "Deliveries_fail",
  "Deliveries_list",
  "EventLog_sendTest",
  "Events_send",
  "Events_sendBatch",
  "Me_claimCashback",
  "Me_claimCheckin",
  "Me_claimMission",
  "Me_getCashback",
  "Me_getCheckin",
  "Me_getLeaderboard",
  "Me_getReferral",
  "Me_getWheel",
  "Me_listBadges",
  "Me_listLeaderboards",
  "Me_listMissions",
  "Me_listNotifications",
  "Me_listRewards",
  "Me_listStore",
  "Me_markAllNotificationsRead",
  "Me_markNotificationRead",
  "Me_redeemStoreItem",
  "Me_spinWheel",
  "Redemptions_create",
  "Referrals_register",
] as const satisfies readonly OperationId[];

type PendingOp = (typeof PENDING)[number];

export function pendingHandlers(): HandlerSet<PendingOp> {
  const notYet = (operationId: string) => async () => {
    throw new ApiError(501, "not_implemented", `${operationId} is not available in this version of the service yet.`);
  };
  return Object.fromEntries(PENDING.map((op) => [op, notYet(op)])) as unknown as HandlerSet<PendingOp>;
}
