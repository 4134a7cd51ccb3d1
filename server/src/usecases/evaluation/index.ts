// The evaluation domain's public face: what other folders may use of it.
export { lockParticipant, lockParticipantByExternalId } from "../../db/participants/locks.js";
export { stateAfter } from "./carried-state.js";
export { webhookParticipant } from "./evaluation-target.js";
export { gatherEvaluation, movesParticipantColumns, persistEvaluation, pointsOf } from "./gather-evaluation.js";
export { writeNotifications, type NotificationText } from "./notifications.js";
export { clubTimeZone, type ParticipantSnapshot } from "./participant-snapshot.js";
export { peakSince } from "./peak-level.js";
export { PendingWrites } from "./pending-writes.js";
export { StandingWrites } from "./standing-writes.js";
export { loadParticipantState, loadStatesForEvents, viewedState } from "./state-loading.js";
// Participants' claims (check-in, wheel, missions, codes, cashback): their writes with the unsubscribed webhooks left out.
export { gatherClaim, writeClaim } from "./claim-writes.js";
