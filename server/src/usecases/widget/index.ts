/** What the widget reads of the club as a whole (`GET /v1/me/config`): a view over the club, participant and reward domains. */
export { etagMatches, getMeConfig } from "./me-config.js";
