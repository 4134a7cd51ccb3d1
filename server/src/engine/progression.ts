import type { CurveConfig, ProgressionConfig, TierConfig } from "./config.js";
import { nextTierAfter, tierForLevel, type NextTier } from "./tiers.js";

/** Exponent of each preset: XP to go from level L to L+1 is round(base × L^e). */
const PRESET_EXPONENTS = { suave: 1.2, media: 1.5, dificil: 1.8 } as const;

// Curves are immutable once a config is published; keying by object identity
// computes each table once per loaded config without any invalidation logic.
const thresholdCache = new WeakMap<CurveConfig, readonly number[]>();

/**
 * Total XP at which each level starts: `thresholds[i]` is where level i+1
 * starts (index 0 = level 1), the last entry is where the last level starts.
 * A table curve is used as given; it must start at 0 and never decrease
 * (otherwise some XP has no consistent level), else this throws a RangeError
 * naming the entry, which the server reports when a config draft is saved.
 */
export function levelThresholds(curve: CurveConfig): readonly number[] {
  const cached = thresholdCache.get(curve);
  if (cached) return cached;
  const thresholds = curve.kind === "preset" ? presetThresholds(curve.preset, curve.base, curve.maxLevel) : tableThresholds(curve.thresholds);
  thresholdCache.set(curve, thresholds);
  return thresholds;
}

function presetThresholds(preset: keyof typeof PRESET_EXPONENTS, base: number, maxLevel: number): readonly number[] {
  const exponent = PRESET_EXPONENTS[preset];
  const thresholds = [0];
  for (let level = 1; level < maxLevel; level++) {
    thresholds.push(thresholds[level - 1] + Math.round(base * level ** exponent));
  }
  return Object.freeze(thresholds);
}

function tableThresholds(table: number[]): readonly number[] {
  if (table[0] !== 0) throw new RangeError(`progression.curve.thresholds[0] is ${table[0]}; level 1 starts at 0 XP, so it must be 0`);
  for (let i = 1; i < table.length; i++) {
    if (table[i] < table[i - 1]) {
      throw new RangeError(`progression.curve.thresholds[${i}] (${table[i]}) is below thresholds[${i - 1}] (${table[i - 1]}); the table must not decrease`);
    }
  }
  return Object.freeze([...table]);
}

/** The level (1-based) a participant with `xp` total XP is on. */
export function levelForXp(thresholds: readonly number[], xp: number): number {
  // Binary search for the last threshold <= xp (thresholds[0] is 0).
  let low = 0;
  let high = thresholds.length - 1;
  while (low < high) {
    const mid = (low + high + 1) >> 1;
    if (thresholds[mid] <= xp) low = mid;
    else high = mid - 1;
  }
  return low + 1;
}

export interface Progress {
  level: number;
  maxLevel: number;
  levelStartXp: number;
  /** Total XP at which the next level starts; null on the last level. */
  nextLevelXp: number | null;
  /** XP still missing for the next level; 0 on the last level. */
  remainingXp: number;
  /** XP earned inside the current level. */
  current: number;
  /** XP the current level spans; 0 on the last level. */
  required: number;
  /** current / required in [0, 1]; 1 on the last level. */
  progress: number;
  /** floor(progress × 100). */
  percent: number;
  tier: TierConfig;
  nextTier: NextTier | null;
}

/** Everything the profile and progress responses show about a participant's XP. */
export function progressFor(progression: ProgressionConfig, xp: number): Progress {
  const thresholds = levelThresholds(progression.curve);
  const level = levelForXp(thresholds, xp);
  const maxLevel = thresholds.length;
  const levelStartXp = thresholds[level - 1];
  const onLastLevel = level === maxLevel;
  const nextLevelXp = onLastLevel ? null : thresholds[level];
  const current = xp - levelStartXp;
  const required = nextLevelXp === null ? 0 : nextLevelXp - levelStartXp;
  const progress = nextLevelXp === null ? 1 : current / required;
  return {
    level,
    maxLevel,
    levelStartXp,
    nextLevelXp,
    remainingXp: nextLevelXp === null ? 0 : nextLevelXp - xp,
    current,
    required,
    progress,
    percent: Math.floor(progress * 100),
    tier: tierForLevel(progression.tiers, level),
    nextTier: nextTierAfter(progression.tiers, level),
  };
}
