// The evaluation domain's public face: what other folders may use of it.
export { stateAfter } from "./carried-state.js";
export { clubTimeZone, gatherEvaluation, loadParticipantState, loadStatesForEvents, lockParticipant, lockParticipantByExternalId, lockParticipants, persistEvaluation, pointsOf, storedPoints, viewedState, webhookParticipant, writeNotifications, type NotificationText, type ParticipantSnapshot } from "./participant-state.js";
export { peakSince } from "./peak-level.js";
export { PendingWrites } from "./pending-writes.js";
