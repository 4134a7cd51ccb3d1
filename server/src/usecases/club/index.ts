// The club domain's public face: what other folders may use of it.
export { createApiKey, listApiKeys, revokeApiKey, rollApiKey, type ApiKeyView } from "./api-keys.js";
export { clubLabel, levelName, renderClubMessage } from "../shared/club-messages.js";
export { createClub, getKeyInfo, getSigningSecrets, resolveApiKey } from "./clubs.js";
export {
  getDraft,
  getPublishedConfig,
  getVersion,
  listVersions,
  publish,
  publishedConfigNow,
  requirePublishedConfig,
  saveDraft,
  validateClubConfig,
  type PublishedConfig,
} from "./config.js";
export { listGames, syncGames } from "./games.js";
export { rollTokenSecret } from "./token-secret.js";
export { listWarnings } from "./warnings.js";
export { clubOverview } from "./overview.js";
