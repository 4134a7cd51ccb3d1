// The participants domain's public face: what other folders may use of it.
export { listNotifications, markAllNotificationsRead, markNotificationRead } from "./notifications.js";
export {
  ensureParticipant,
  getProfile,
  getProgress,
  getProgressBatch,
  loadBalances,
  newParticipantRow,
  participantCreatedMessage,
  participantNotFound,
  readParticipantMissions,
  upsertParticipant,
} from "./participants.js";
export { renameParticipant } from "./rename.js";
export { listMyBadges } from "./badges.js";
export { findMe } from "./find-me.js";
export { reviewTiers } from "./tier-review.js";
export { levelTable, type Balances } from "./views.js";
export { listLedger } from "./ledger.js";
