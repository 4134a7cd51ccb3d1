// The webhooks domain's public face: what other folders may use of it.
export { ADDRESS_REFUSED, guardedLookup, isRefusedLiteralHost, parseWebhookUrl } from "./address.js";
export {
  createEndpoint,
  deleteEndpoint,
  getEndpoint,
  listEndpoints,
  listSendings,
  rotateSecret,
  sendingView,
  signingSecrets,
  updateEndpoint,
} from "./endpoints.js";
export { recordWebhook, webhookMessage } from "./outbox.js";
export { getSending, sendEndpointTest } from "./sending-tools.js";
