// The participant-surface models (answers of /v1/me/*), named as in the
// contract. Both SDKs export them; the Node SDK adds the server-mode models.
import type { components } from "../../generated/types.js";

type Schemas = components["schemas"];

export type ParticipantProfile = Schemas["ParticipantProfile"];
export type ParticipantProgress = Schemas["ParticipantProgress"];
export type MyMission = Schemas["MyMission"];
export type MissionClaimResult = Schemas["MissionClaimResult"];
export type CheckinState = Schemas["CheckinState"];
export type CheckinClaimResult = Schemas["CheckinClaimResult"];
export type WheelState = Schemas["WheelState"];
export type WheelSpinResult = Schemas["WheelSpinResult"];
export type StoreItem = Schemas["StoreItem"];
export type Redemption = Schemas["Redemption"];
export type MyReward = Schemas["MyReward"];
export type Notification = Schemas["Notification"];
export type NotificationList = Schemas["NotificationList"];
export type CashbackState = Schemas["CashbackState"];
export type CashbackClaimResult = Schemas["CashbackClaimResult"];
export type ReferralState = Schemas["ReferralState"];
export type LeaderboardStanding = Schemas["LeaderboardStanding"];
export type Leaderboard = Schemas["Leaderboard"];
export type MyBadge = Schemas["MyBadge"];
export type Effect = Schemas["Effect"];
export type ErrorBody = Schemas["ErrorBody"];
