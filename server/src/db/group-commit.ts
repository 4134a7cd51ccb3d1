/**
 * Group commit: work submitted concurrently under the same key is gathered
 * for one turn of the event loop (or until `cap` items wait) and applied
 * together, so many callers share one transaction — one BEGIN/COMMIT, one lock
 * round, one statement per table — instead of each paying for its own. Every
 * caller still receives its own outcome. While the key's previous groups are
 * still being applied (`maxInFlight`), the next one keeps gathering: requests
 * reach the use case spread over many turns (each first awaits its own
 * authentication), so a window of one turn alone would rarely gather two.
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
  /** At most this many items per group; a full group is closed at once. */
  cap: number;
  /**
   * At most this many groups of one key applied at a time. While they are,
   * the next group keeps gathering — the busier the key, the bigger its
   * groups — and is applied as soon as one of them ends.
   */
  maxInFlight?: number;
  /** Applies several items in one unit (one transaction); answers in item order. */
  applyGroup(key: string, items: T[]): Promise<R[]>;
  /** Applies one item on its own. */
  applyOne(key: string, item: T): Promise<R>;
  /** Runs `end` once the gathering window ends; one `setImmediate` turn unless a test passes its own. */
  schedule?: (end: () => void) => void;
}

interface Waiting<T, R> {
  item: T;
  resolve(value: R): void;
  reject(error: unknown): void;
}

interface Group<T, R> {
  waiting: Waiting<T, R>[];
  /** Its window ended: it is applied as soon as the lane has room, and gathers until then. */
  due: boolean;
}

/** What one key has: full groups waiting their turn, the one gathering, and how many are being applied. */
interface Lane<T, R> {
  full: Group<T, R>[];
  open: Group<T, R> | null;
  inFlight: number;
}

export class GroupCommit<T, R> {
  private readonly lanes = new Map<string, Lane<T, R>>();
  private readonly schedule: (end: () => void) => void;
  private readonly maxInFlight: number;

  constructor(private readonly options: GroupCommitOptions<T, R>) {
    if (!(options.cap >= 1)) throw new RangeError("a group holds at least one item");
    this.maxInFlight = options.maxInFlight ?? 1;
    if (!(this.maxInFlight >= 1)) throw new RangeError("at least one group must be allowed in flight");
    this.schedule = options.schedule ?? ((end) => void setImmediate(end));
  }

  /** Applies `item` with whatever else is submitted under `key` in the same window; its own outcome. */
  submit(key: string, item: T): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      let lane = this.lanes.get(key);
      if (!lane) {
        lane = { full: [], open: null, inFlight: 0 };
        this.lanes.set(key, lane);
      }
      if (!lane.open) {
        const group: Group<T, R> = { waiting: [], due: false };
        lane.open = group;
        const gathering = lane;
        this.schedule(() => {
          group.due = true;
          this.pump(key, gathering);
        });
      }
      lane.open.waiting.push({ item, resolve, reject });
      if (lane.open.waiting.length >= this.options.cap) {
        lane.full.push(lane.open);
        lane.open = null;
        this.pump(key, lane);
      }
    });
  }

  /** How many items wait under `key`, not yet being applied (for tests). */
  waiting(key: string): number {
    const lane = this.lanes.get(key);
    if (!lane) return 0;
    return lane.full.reduce((sum, group) => sum + group.waiting.length, lane.open?.waiting.length ?? 0);
  }

  /** Starts the groups the lane has room for, in arrival order (full ones, then the gathering one once due); forgets an idle lane. */
  private pump(key: string, lane: Lane<T, R>): void {
    while (lane.inFlight < this.maxInFlight) {
      let group = lane.full.shift();
      if (!group && lane.open?.due) {
        group = lane.open;
        lane.open = null;
      }
      if (!group) break;
      lane.inFlight++;
      void this.apply(key, group.waiting).finally(() => {
        lane.inFlight--;
        this.pump(key, lane);
      });
    }
    if (lane.inFlight === 0 && lane.full.length === 0 && lane.open === null && this.lanes.get(key) === lane) this.lanes.delete(key);
  }

  private async apply(key: string, group: Waiting<T, R>[]): Promise<void> {
    if (group.length > 1) {
      let results: R[] | undefined;
      try {
        results = await this.options.applyGroup(
          key,
          group.map((waiting) => waiting.item),
        );
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

/**
 * One GroupCommit per `owner` (a database: a process may open several, tests
 * do), made with `options(owner)` on first use.
 */
export function groupCommitPer<K extends object, T, R>(options: (owner: K) => GroupCommitOptions<T, R>): (owner: K) => GroupCommit<T, R> {
  const made = new WeakMap<K, GroupCommit<T, R>>();
  return (owner) => {
    let groups = made.get(owner);
    if (!groups) {
      groups = new GroupCommit(options(owner));
      made.set(owner, groups);
    }
    return groups;
  };
}

/**
 * Groups of one key a database applies at a time: SQLite writes one
 * transaction at a time anyway; on PostgreSQL a second group evaluates while
 * the first waits for its commit.
 */
export function groupsInFlight(db: { dialect: "postgresql" | "sqlite" }): number {
  return db.dialect === "sqlite" ? 1 : 2;
}
