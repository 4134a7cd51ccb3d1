// The model types an SDK user handles, taken from the contract
// (generated/types.ts), so a contract change that breaks the SDK fails `tsc`.
import type { components, webhooks } from "../../generated/types.js";

export type { OperationId, QueryParams, RequestBody, ResponseBody } from "../../sdk-shared/src/operation-types.js";
// The participant surface's models (ParticipantProfile, ParticipantProgress, Redemption, Effect, ErrorBody, …).
export type * from "../../sdk-shared/src/models.js";

type Schemas = components["schemas"];

export type Health = Schemas["Health"];
export type ParticipantUpsert = Schemas["ParticipantUpsert"];
export type ParticipantProgressBatch = Schemas["ParticipantProgressBatch"];
export type TokenRequest = Schemas["TokenRequest"];
export type TokenResponse = Schemas["TokenResponse"];
export type ParticipantRename = Schemas["ParticipantRename"];
export type ParticipantRenameReport = Schemas["ParticipantRenameReport"];
export type EventInput = Schemas["EventInput"];
export type EventResult = Schemas["EventResult"];
export type EventsQueued = Schemas["EventsQueued"];
export type EventBatchResult = Schemas["EventBatchResult"];
export type EventLogEntry = Schemas["EventLogEntry"];
export type Delivery = Schemas["Delivery"];
export type DeliveryStatus = Schemas["DeliveryStatus"];
export type DeliveryConfirm = Schemas["DeliveryConfirm"];
export type DeliveryFail = Schemas["DeliveryFail"];
export type RedemptionRequest = Schemas["RedemptionRequest"];
export type ReferralRegistration = Schemas["ReferralRegistration"];
export type ReferralRegistrationResult = Schemas["ReferralRegistrationResult"];
export type AffiliateAttributionRequest = Schemas["AffiliateAttributionRequest"];
export type AffiliateAttribution = Schemas["AffiliateAttribution"];
export type Affiliate = Schemas["Affiliate"];
export type AffiliateCreate = Schemas["AffiliateCreate"];
export type AffiliateUpdate = Schemas["AffiliateUpdate"];
export type CashbackProgram = Schemas["CashbackProgram"];
export type CashbackProgramUpdate = Schemas["CashbackProgramUpdate"];
export type ConfigEnvelope = Schemas["ConfigEnvelope"];
export type ClubConfig = Schemas["ClubConfig"];
export type ConfigDraft = Schemas["ConfigDraft"];
export type ConfigVersion = Schemas["ConfigVersion"];
export type ConfigVersionSummary = Schemas["ConfigVersionSummary"];
export type KeyInfo = Schemas["KeyInfo"];
export type Game = Schemas["Game"];
export type GamesSync = Schemas["GamesSync"];
export type GamesSynced = Schemas["GamesSynced"];
export type WebhookEndpoint = Schemas["WebhookEndpoint"];
export type WebhookEndpointCreate = Schemas["WebhookEndpointCreate"];
export type WebhookEndpointUpdate = Schemas["WebhookEndpointUpdate"];
export type WebhookEndpointWithSecret = Schemas["WebhookEndpointWithSecret"];
export type WebhookSending = Schemas["WebhookSending"];
export type StaffWarning = Schemas["StaffWarning"];
export type WebhookEnvelope = Schemas["WebhookEnvelope"];

/**
 * Every webhook the club sends, as a union discriminated by `type`
 * (`switch (event.type) { case "level.up": event.data.level … }`).
 */
export type WebhookEvent = {
  [Name in keyof webhooks]: webhooks[Name]["post"]["requestBody"] extends { content: { "application/json": infer Body } } ? Body : never;
}[keyof webhooks];
