/**
 * A small in-memory cache of values read from the database: entries live for
 * `ttlMs` (0 turns caching off), and `forget` drops entries at once when the
 * data behind them changes.
 *
 * A read that started before a `forget` is never stored: it may have read the
 * data as it was before the change, and storing it would bring the old value
 * back for a whole TTL. Concurrent misses of one key share a single read.
 */
export class TtlCache<V> {
  private readonly entries = new Map<string, { value: V; until: number }>();
  private readonly reads = new Map<string, Promise<V>>();
  /** Bumped by every `forget`: a read started under an older count is answered but not stored. */
  private forgets = 0;

  constructor(
    readonly ttlMs: number,
    /** Bound on the entries kept; reaching it empties the cache (a cheap sweep of expired entries). */
    private readonly maxEntries = 10_000,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** The cached value of `key`, or the value `read` gives, stored when `keep` accepts it (e.g. no "not found"). */
  async get(key: string, read: () => Promise<V>, keep: (value: V) => boolean = () => true): Promise<V> {
    if (this.ttlMs <= 0) return read();
    const entry = this.entries.get(key);
    if (entry && entry.until > this.now()) return entry.value;
    const shared = this.reads.get(key);
    // A shared read that fails (e.g. its caller's transaction ended) must not fail this caller: read again.
    if (shared) return shared.catch(() => read());
    const generation = this.forgets;
    const reading = read().then((value) => {
      if (generation === this.forgets && keep(value)) {
        if (this.entries.size >= this.maxEntries) this.entries.clear();
        this.entries.set(key, { value, until: this.now() + this.ttlMs });
      }
      return value;
    });
    this.reads.set(key, reading);
    const done = () => void (this.reads.get(key) === reading && this.reads.delete(key));
    reading.then(done, done);
    return reading;
  }

  /** Drops the entries `match` selects (every entry without it), and keeps reads under way from being stored. */
  forget(match?: (key: string, value: V) => boolean): void {
    this.forgets++;
    this.reads.clear();
    if (!match) return this.entries.clear();
    for (const [key, entry] of this.entries) if (match(key, entry.value)) this.entries.delete(key);
  }

  /** Moves with every `forget`: something derived from this cache's entries is stale once it moved. */
  get generation(): number {
    return this.forgets;
  }

  /** The live entry of `key` and when it ends (this cache's clock), without reading; undefined when there is none. */
  peek(key: string): { value: V; until: number } | undefined {
    const entry = this.entries.get(key);
    return entry && entry.until > this.now() ? entry : undefined;
  }

  /** This cache's clock (ms), against which `peek`'s `until` is compared. */
  clock(): number {
    return this.now();
  }

  get size(): number {
    return this.entries.size;
  }
}
