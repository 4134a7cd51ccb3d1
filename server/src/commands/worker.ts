import type { Settings } from "../settings.js";

/** `clube worker`: queue workers as their own process. */
export async function worker(_settings: Settings): Promise<void> {
  throw new Error("clube worker: the queue workers are not wired in yet (see the async issue); clube serve runs everything in-process");
}
