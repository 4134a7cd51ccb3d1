// @clube/node: the typed server-side client of the Clube API and the webhook
// signature verifier.
export { Clube, type ClubeOptions } from "./client.js";
export { ClubeError } from "../../sdk-browser/src/errors.js";
export type { MeMethods } from "../../sdk-browser/src/me.js";
export type { SendEventOptions } from "./resources/events.js";
export { verifyWebhook, WebhookVerificationError, type VerifyWebhookOptions, type WebhookVerificationReason } from "./webhooks.js";
export type * from "./types.js";
