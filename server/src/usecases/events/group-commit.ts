/**
 * Group commit: work submitted concurrently under the same key is gathered
 * for one turn of the event loop (or until `cap` items wait) and applied
 * together, so many callers share one transaction — one BEGIN/COMMIT, one lock
 * round, one statement per table — instead of each paying for its own. Every
 * caller still receives its own outcome.
 *
 * Atomicity stays per caller: when applying the whole group fails for any
 * reason, nothing of it was committed (it is one transaction), and each item
 * is applied again alone, in arrival order, so one bad item fails only its own
 * caller. A group of one is applied alone straight away.
 *
 * The key decides what may share a transaction (same club and environment,
 * same clock); items of different keys never mix. Nothing here does I/O: the
 * caller passes how a group and a single item are applied.
 */
export interface GroupCommitOptions<T, R> {
  /** At most this many items per group; a full group is applied at once. */
  cap: number;
  /** Applies several items in one unit (one transaction); answers in item order. */
  applyGroup(key: string, items: T[]): Promise<R[]>;
  /** Applies one item on its own. */
  applyOne(key: string, item: T): Promise<R>;
  /** Runs `flush` once the gathering window ends; one `setImmediate` turn unless a test passes its own. */
  schedule?: (flush: () => void) => void;
}

interface Waiting<T, R> {
  item: T;
  resolve(value: R): void;
  reject(error: unknown): void;
}

export class GroupCommit<T, R> {
  private readonly gathering = new Map<string, Waiting<T, R>[]>();
  private readonly schedule: (flush: () => void) => void;

  constructor(private readonly options: GroupCommitOptions<T, R>) {
    if (!(options.cap >= 1)) throw new RangeError("a group holds at least one item");
    this.schedule = options.schedule ?? ((flush) => void setImmediate(flush));
  }

  /** Applies `item` with whatever else is submitted under `key` in the same window; its own outcome. */
  submit(key: string, item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      let waiting = this.gathering.get(key);
      if (!waiting) {
        waiting = [];
        this.gathering.set(key, waiting);
        const group = waiting;
        this.schedule(() => this.close(key, group));
      }
      waiting.push({ item, resolve, reject });
      if (waiting.length >= this.options.cap) this.close(key, waiting);
    });
  }

  /** How many items wait under `key` (for tests). */
  waiting(key: string): number {
    return this.gathering.get(key)?.length ?? 0;
  }

  /** Ends the window of `group` (once: a full group closes before its scheduled flush) and applies it. */
  private close(key: string, group: Waiting<T, R>[]): void {
    if (this.gathering.get(key) !== group) return;
    this.gathering.delete(key);
    void this.apply(key, group);
  }

  private async apply(key: string, group: Waiting<T, R>[]): Promise<void> {
    if (group.length > 1) {
      let results: R[] | undefined;
      try {
        results = await this.options.applyGroup(key, group.map((waiting) => waiting.item));
      } catch {
        // Nothing of the group was committed: each item alone below, so only a bad one fails.
      }
      if (results !== undefined) {
        // A group that committed is never applied again; a miscounted answer is a bug, reported to every caller.
        const miscounted = results.length === group.length ? null : new Error(`a group of ${group.length} answered ${results.length} results`);
        group.forEach((waiting, i) => (miscounted ? waiting.reject(miscounted) : waiting.resolve(results[i])));
        return;
      }
    }
    // In arrival order: a participant's events keep their order.
    for (const waiting of group) {
      try {
        waiting.resolve(await this.options.applyOne(key, waiting.item));
      } catch (error) {
        waiting.reject(error);
      }
    }
  }
}
