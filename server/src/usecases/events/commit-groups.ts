import type { Scope } from "../../db/scope.js";
import { clockOverride } from "../sandbox/index.js";
import type { AfterCommit } from "../shared/after-commit.js";

/* What events applied together (group commit, db/group-commit.ts) share, and how their callers hear of it. */

/** At most this many single events share one transaction. */
export const GROUP_CAP = 128;

/** The latest of `times`: events applied together are evaluated when the last of them arrived. */
export function latest(times: Date[]): Date {
  return new Date(Math.max(...times.map((time) => time.getTime())));
}

/** Tells each caller whose work shared a commit that wrote outbox rows. */
export function signalOutbox(written: boolean, callers: { afterCommit?: AfterCommit }[]): void {
  if (written) for (const caller of callers) caller.afterCommit?.("outbox");
}

/**
 * What may share a transaction: the same club environment and base URL, the
 * same kind of clock (a test clock's work never mixes with real time's), and
 * the same second — a group is evaluated at its latest arrival, and within a
 * second no day, week or month turns over, so a clock that jumps (a test's)
 * never gets its events evaluated at another event's time.
 */
export function groupKey(scope: Scope, publicUrl: string, now: Date): string {
  return [scope.clubId, scope.env, publicUrl, clockOverride() === undefined ? "real" : "test", Math.floor(now.getTime() / 1000)].join("\u0000");
}
