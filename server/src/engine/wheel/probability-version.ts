import type { WheelConfig } from "../wheel.js";

/** What the odds of a wheel are made of: each slice's id, weight, reward and tier quantities, in wheel order. */
function odds(wheel: Pick<WheelConfig, "slices"> | undefined): string {
  return JSON.stringify((wheel?.slices ?? []).map((slice) => [slice.id, slice.weight, slice.reward ?? null, slice.tierQty ?? null]));
}

/**
 * The `probabilityVersion` a wheel about to be published must carry: when its
 * weights or prizes differ from the published wheel's but its version does
 * not go up, one above the published version (so every spin's recorded
 * version names the odds it was drawn with); otherwise its own. Both wheels
 * filled with defaults.
 */
export function requiredProbabilityVersion(
  published: Pick<WheelConfig, "slices" | "probabilityVersion"> | undefined,
  next: Pick<WheelConfig, "slices" | "probabilityVersion">,
): number {
  if (!published || odds(published) === odds(next) || next.probabilityVersion > published.probabilityVersion) return next.probabilityVersion;
  return published.probabilityVersion + 1;
}
