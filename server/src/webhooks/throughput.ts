/**
 * The two helpers that let the dispatcher send many webhooks at once without
 * flooding a receiver or writing one row per answer.
 */

/**
 * At most `limit` tasks running per key (an endpoint id); the rest wait in
 * arrival order. Keys with nothing running or waiting are forgotten, so the
 * map holds only endpoints busy right now.
 */
export class EndpointLanes {
  private readonly lanes = new Map<string, { running: number; waiting: Array<() => void> }>();

  constructor(private readonly limit: number) {
    if (!Number.isInteger(limit) || limit < 1) throw new RangeError(`limit must be a positive integer, got ${limit}`);
  }

  async run<T>(key: string, task: () => Promise<T>): Promise<T> {
    let lane = this.lanes.get(key);
    if (!lane) this.lanes.set(key, (lane = { running: 0, waiting: [] }));
    if (lane.running >= this.limit) await new Promise<void>((resolve) => lane.waiting.push(resolve));
    else lane.running += 1;
    try {
      return await task();
    } finally {
      // Hand the slot straight to the next waiter (running stays the same), or free it.
      const next = lane.waiting.shift();
      if (next) next();
      else if (--lane.running === 0) this.lanes.delete(key);
    }
  }
}

/** A succeeded attempt to record: the sending, its attempt count before this attempt, the HTTP status, and the attempt's timing for its log row. */
export interface Success {
  id: string;
  attempts: number;
  statusCode: number | null;
  startedAt: Date;
  durationMs: number;
}

/**
 * Gathers items and hands them to `flush` together, which answers with one
 * result per item, in order; `add` resolves with its item's result (or
 * rejects with the flush's error). One flush runs at a time: the items added
 * meanwhile wait for the next one, so under load each statement carries
 * everything that arrived while the previous one ran (group commit), and
 * when idle an item waits one turn of the event loop at most.
 */
export class TickBatch<I, O> {
  private pending: Array<{ item: I; resolve: (result: O) => void; reject: (error: unknown) => void }> = [];
  private scheduled = false;
  private writing = false;

  constructor(private readonly flush: (items: readonly I[]) => Promise<readonly O[]>) {}

  add(item: I): Promise<O> {
    return new Promise((resolve, reject) => {
      this.pending.push({ item, resolve, reject });
      this.schedule();
    });
  }

  private schedule(): void {
    if (this.scheduled || this.writing || this.pending.length === 0) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      void this.write();
    });
  }

  private async write(): Promise<void> {
    const batch = this.pending;
    this.pending = [];
    this.writing = true;
    try {
      const results = await this.flush(batch.map((entry) => entry.item));
      batch.forEach((entry, i) => entry.resolve(results[i]));
    } catch (error) {
      for (const entry of batch) entry.reject(error);
    } finally {
      this.writing = false;
      this.schedule();
    }
  }
}

/**
 * Gathers the successes reported during one turn of the event loop and
 * writes them with one `flush` call; `add` resolves once its success is
 * written (or rejects with the write's error), so a queue message is only
 * acknowledged after its sending is recorded.
 */
export class SuccessLog {
  private readonly batch: TickBatch<Success, void>;

  constructor(flush: (batch: readonly Success[]) => Promise<void>) {
    this.batch = new TickBatch<Success, void>(async (successes) => {
      await flush(successes);
      return successes.map(() => undefined);
    });
  }

  add(success: Success): Promise<void> {
    return this.batch.add(success);
  }
}
