// @clube/node: the typed server-side client of the Clube API and the webhook
// signature verifier.
export { Clube, type ClubeOptions } from "./client.js";
export { ClubeError, type ClubeErrorCode, type ClientErrorCode } from "../../sdk-shared/src/errors.js";
export type { AsyncRequestOptions, RequestOptions, ResponseMeta, WithResponse } from "../../sdk-shared/src/request.js";
export type { AutoPagingToArrayOptions, ListPromise, Page } from "../../sdk-shared/src/pagination.js";
export * from "./generated/resources.js";
/** The participant surface in headless mode (what `clube.me(externalId)` returns). */
export type { MeResource as MeMethods } from "./generated/resources.js";
export {
  parseSignatureHeader,
  signTestWebhook,
  verifyWebhook,
  WebhookVerificationError,
  type SignTestOptions,
  type VerifyWebhookOptions,
  type WebhookVerificationReason,
} from "./webhooks.js";
export { VERSION } from "./version.js";
export type * from "./types.js";
/** The options of `clube.events.send` (an idempotency key, `async`, …). */
export type { AsyncRequestOptions as SendEventOptions } from "../../sdk-shared/src/request.js";
