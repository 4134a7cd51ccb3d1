// The model types an SDK user handles, taken from the contract
// (generated/types.ts), so a contract change that breaks the SDK fails `tsc`.
import type { components, webhooks } from "../../generated/types.js";

export type { QueryParams, RequestBody } from "../../sdk-browser/src/operation-types.js";

type Schemas = components["schemas"];

export type Health = Schemas["Health"];
export type ParticipantProfile = Schemas["ParticipantProfile"];
export type ParticipantUpsert = Schemas["ParticipantUpsert"];
export type ParticipantProgress = Schemas["ParticipantProgress"];
export type TokenRequest = Schemas["TokenRequest"];
export type TokenResponse = Schemas["TokenResponse"];
export type ParticipantRename = Schemas["ParticipantRename"];
export type ParticipantRenameReport = Schemas["ParticipantRenameReport"];
export type EventInput = Schemas["EventInput"];
export type Effect = Schemas["Effect"];
export type EventResult = Schemas["EventResult"];
export type EventsQueued = Schemas["EventsQueued"];
export type EventBatchResult = Schemas["EventBatchResult"];
export type Delivery = Schemas["Delivery"];
export type DeliveryStatus = Schemas["DeliveryStatus"];
export type DeliveryConfirm = Schemas["DeliveryConfirm"];
export type Redemption = Schemas["Redemption"];
export type RedemptionRequest = Schemas["RedemptionRequest"];
export type ReferralRegistration = Schemas["ReferralRegistration"];
export type ReferralRegistrationResult = Schemas["ReferralRegistrationResult"];
export type AffiliateAttribution = Schemas["AffiliateAttribution"];
export type CashbackProgram = Schemas["CashbackProgram"];
export type ConfigEnvelope = Schemas["ConfigEnvelope"];
export type ClubConfig = Schemas["ClubConfig"];
export type KeyInfo = Schemas["KeyInfo"];
export type Game = Schemas["Game"];
export type WebhookEnvelope = Schemas["WebhookEnvelope"];

/**
 * Every webhook the club sends, as a union discriminated by `type`
 * (`switch (event.type) { case "level.up": event.data.level … }`).
 */
export type WebhookEvent = {
  [Name in keyof webhooks]: webhooks[Name]["post"]["requestBody"] extends { content: { "application/json": infer Body } } ? Body : never;
}[keyof webhooks];
