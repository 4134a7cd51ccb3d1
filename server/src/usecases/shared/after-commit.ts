/**
 * What a use case leaves for its caller to do once its transaction has
 * committed. `"outbox"`: the commit wrote (or may have written) outbox rows,
 * so the caller wakes the relay then; the use case knows nothing of the relay.
 */
export type CommitEffect = "outbox";

/**
 * The after-commit hook of a request context (handlers/context.ts) or a
 * worker: a use case calls it while it works, the caller acts after the
 * commit (a failed request acts on nothing).
 */
export type AfterCommit = (effect: CommitEffect) => void;
