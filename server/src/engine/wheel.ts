import type { components } from "../../../generated/types.js";
import { parseRewardSpec } from "./rewards.js";

/*
 * The prize wheel, pure: the random source is a parameter (the crypto RNG in
 * production, a seeded generator in tests) and the caller counts the spins
 * already made today. Semantics: `WheelState`/`WheelSpinResult` in
 * spec/surface/wheel.tsp and `WheelConfig` in spec/config/wheel.tsp.
 */

type Schemas = components["schemas"];
export type WheelState = Schemas["WheelState"];
type WheelSlicePayload = Schemas["WheelSlicePayload"] & Record<string, unknown>;
export type WheelSliceConfig = Omit<Schemas["WheelSlice"], "reward" | "weight" | "tierQty"> & {
  reward: string | null;
  weight: number;
  tierQty?: Record<string, number>;
};

/** The `wheel` section with every default filled (as the validator leaves it). */
export type WheelConfig = Required<Omit<Schemas["WheelConfig"], "slices">> & { slices: WheelSliceConfig[] };

/** A uniform random number in [0, 1). */
export type RandomSource = () => number;

/** What a club without a `wheel` section shows: the documented defaults, disabled, no slices. */
export const NO_WHEEL: Readonly<WheelConfig> = Object.freeze({
  enabled: false,
  style: "classica",
  titleLeft: "ROLETA",
  titleRight: "GRATUITA",
  slices: [],
  spinsPerDay: 1,
  probabilityVersion: 1,
});

/** The slices as participants see them: weights and `tierQty` stay on the server, so the odds are never published. */
export function visibleSlices(config: WheelConfig): Record<string, unknown>[] {
  return config.slices.map(({ weight: _weight, tierQty: _tierQty, ...shown }) => shown);
}

/** Spins left today; a disabled wheel has none. */
export function spinsLeft(config: WheelConfig, spinsToday: number): number {
  return config.enabled ? Math.max(0, config.spinsPerDay - spinsToday) : 0;
}

/**
 * Draws a slice with probability weight / sum of weights and returns its index;
 * null when no slice has a positive weight (nothing can win). Slices of weight 0
 * are skipped, so they never win even when the draw lands on their boundary.
 */
export function pickSlice(slices: readonly WheelSliceConfig[], random: RandomSource): number | null {
  const total = slices.reduce((sum, slice) => sum + slice.weight, 0);
  if (total <= 0) return null;
  const target = random() * total;
  let cumulative = 0;
  let last: number | null = null;
  for (const [index, slice] of slices.entries()) {
    if (slice.weight <= 0) continue;
    cumulative += slice.weight;
    last = index;
    if (target < cumulative) return index;
  }
  // Rounding in the running sum can leave a draw just under `total` past the last boundary.
  return last;
}

/** What a slice gives a participant of `tierCode`. */
export interface SlicePrize {
  /** The reward spec to grant; null for a "try again" slice. */
  spec: string | null;
  /** The payload to show and to lay over the granted reward's payload; absent when the slice grants nothing or has none. */
  prize?: WheelSlicePayload;
}

/**
 * A whole-number, non-exponent decimal for a spec quantity. `tierQty` is at
 * most 10,000,000, so only quantities under 1e-6 print in exponent form, and
 * those grant nothing anyway.
 */
function quantityText(quantity: number): string {
  const text = String(quantity);
  return /e/i.test(text) ? "0" : text;
}

/**
 * The slice's spec and prize, with the participant's tier quantity from
 * `tierQty` when it sets one: the number of an XP or currency spec
 * (`coins:50` → `coins:<qty>`), otherwise the payload's `spins` (free spins)
 * or `amount_cents` (bonus, cash), truncated to whole units.
 */
export function slicePrize(slice: WheelSliceConfig, tierCode: string): SlicePrize {
  if (slice.reward === null) return { spec: null };
  const quantity = slice.tierQty?.[tierCode];
  const parsed = parseRewardSpec(slice.reward);
  let spec = slice.reward;
  let prize = slice.payload && { ...slice.payload };
  if (quantity !== undefined && parsed !== null && parsed.kind !== "reward") {
    spec = `${parsed.kind === "xp" ? "xp" : parsed.currency}:${quantityText(quantity)}`;
  } else if (quantity !== undefined && prize) {
    const field = prize.kind === "free_spins" ? "spins" : "amount_cents";
    prize = { ...prize, [field]: Math.trunc(quantity) };
  }
  return prize ? { spec, prize } : { spec };
}
