import type { Settings } from "../settings.js";

/** `clube webhooks add`: registers a webhook endpoint for an operator. */
export async function webhooksAdd(_settings: Settings, _args: string[]): Promise<void> {
  throw new Error("clube webhooks add: webhook endpoints are not wired in yet (see the async issue)");
}
