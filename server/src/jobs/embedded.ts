import { UniqueConstraintViolationException, type RequiredEntityData } from "@mikro-orm/core";
import type { SqlEntityManager } from "@mikro-orm/knex";
import type { Database } from "../db/orm.js";
import { Job } from "../db/entities/index.js";
import {
  DEFAULT_PREFETCH,
  checkPayload,
  logHandlerFailure,
  messageIdFor,
  type Consumer,
  type ConsumeOptions,
  type HandlerFailure,
  type MessageHandler,
  type PublishOptions,
  type Queue,
} from "./queue.js";
import { DEFAULT_RETRY_POLICY, retryDelayMs, type RetryPolicy } from "./retry.js";
import { yieldToEventLoop } from "../db/yield-to-event-loop.js";
import { GroupCommit } from "../db/group-commit.js";

export interface EmbeddedQueueOptions {
  db: Database;
  /** The clock deciding when jobs are due and leases end. */
  now?: () => Date;
  /** How often an idle consumer looks for due jobs (other processes cannot wake it). */
  pollIntervalMs?: number;
  /**
   * How long a claimed job stays reserved. A running handler renews its lease
   * every third of it; a job whose worker died is claimed again once it ends.
   */
  leaseMs?: number;
  retry?: RetryPolicy;
  onHandlerFailure?: (failure: HandlerFailure) => void;
  /** Problems of the poller itself (database unreachable…); it keeps polling. */
  onPollError?: (error: unknown) => void;
  /** Finished jobs are deleted after this long (dead ones are kept for an operator). */
  retainDoneMs?: number;
}

type JobRow = Pick<Job, "id" | "queue" | "payload" | "status" | "attempts">;
type NewJob = Pick<Job, "id" | "queue" | "payload" | "status" | "attempts" | "runAt" | "createdAt" | "updatedAt">;

/** At most this many jobs inserted or completed by one statement. */
const PUBLISH_CAP = 500;

/**
 * The queue port on the database (table `jobs`), for one machine without a
 * broker: jobs survive restarts because they are rows, committed before
 * `publish` resolves.
 *
 * Claiming is a compare-and-set UPDATE (`… WHERE id = ? AND attempts = ? AND
 * (status = 'ready' AND run_at <= now OR status = 'running' AND locked_until
 * <= now)`): of two workers racing for a job exactly one changes the row, on
 * SQLite (writes serialised) and on PostgreSQL (the loser re-checks the WHERE
 * against the winner's row and matches nothing). `attempts` counts claims, so
 * a job that keeps killing its worker still reaches the maximum and dies.
 * Every later write on the job is conditioned on the same `attempts`, so a
 * worker that lost its lease cannot overwrite the new owner's outcome.
 */
export function openEmbeddedQueue(options: EmbeddedQueueOptions): Queue {
  return new EmbeddedQueue(options);
}

/** The queue as the embedded one, whose jobs other writers of its database may store themselves (see EmbeddedQueue.jobRow); null for another adapter. */
export function embeddedQueueOf(queue: Queue): EmbeddedQueue | null {
  return queue instanceof EmbeddedQueue ? queue : null;
}

export class EmbeddedQueue implements Queue {
  private readonly consumers = new Set<EmbeddedConsumer>();
  private purgeTimer: NodeJS.Timeout | undefined;

  constructor(private readonly options: EmbeddedQueueOptions) {}

  /**
   * Stores the job; resolves once it is committed. Jobs published together
   * (a relay pass hands over its whole batch at once) are inserted with one
   * statement; when that fails (an id already stored), each is inserted alone.
   */
  async publish(queue: string, payload: unknown, opts: PublishOptions = {}): Promise<void> {
    checkPayload(payload);
    await this.publishes.submit("jobs", this.jobRow(queue, payload, messageIdFor(opts), this.now(), opts.delayMs));
    this.stored(queue);
  }

  /**
   * The row that queues `payload` (a message with id `id`, due `delayMs`
   * after `at`), for a writer that stores it in its own transaction instead
   * of publishing — then calls `stored` after its commit.
   */
  jobRow(queue: string, payload: unknown, id: string, at: Date, delayMs = 0): NewJob {
    checkPayload(payload);
    return { id, queue, payload, status: "ready", attempts: 0, runAt: new Date(at.getTime() + delayMs), createdAt: at, updatedAt: at };
  }

  /** Jobs of `queue` were committed in this process: its consumers here need not wait for their next poll. */
  stored(queue: string): void {
    for (const consumer of this.consumers) if (consumer.queue === queue) consumer.jobsArrived();
  }

  private readonly publishes = new GroupCommit<NewJob, void>({
    cap: PUBLISH_CAP,
    applyGroup: async (_, jobs) => {
      await this.options.db.em().insertMany<Job>(Job, jobs as RequiredEntityData<Job>[]);
      return jobs.map(() => undefined);
    },
    applyOne: (_, job) => this.insertOne(job),
  });

  private async insertOne(job: NewJob): Promise<void> {
    try {
      await this.options.db.em().insert(Job, job as RequiredEntityData<Job>);
    } catch (error) {
      if (!(error instanceof UniqueConstraintViolationException)) throw error;
      // The same message published again (a relay retrying after a crash) is already queued;
      // the same id on another queue is a producer bug, not a duplicate.
      const existing = await this.options.db.em().findOne(Job, { id: job.id }, { fields: ["queue"] });
      if (existing?.queue !== job.queue) throw new Error(`message id ${job.id} is already used on queue ${existing?.queue}`);
    }
  }

  async consume(queue: string, handler: MessageHandler, opts: ConsumeOptions = {}): Promise<Consumer> {
    const consumer = new EmbeddedConsumer(queue, handler, opts.prefetch ?? DEFAULT_PREFETCH, this);
    this.consumers.add(consumer);
    this.purgeTimer ??= setInterval(() => void this.purgeDone(), this.retainDoneMs() / 24);
    consumer.start();
    return {
      close: async () => {
        this.consumers.delete(consumer);
        await consumer.close();
      },
    };
  }

  async close(): Promise<void> {
    clearInterval(this.purgeTimer);
    this.purgeTimer = undefined;
    await Promise.all([...this.consumers].map((consumer) => consumer.close()));
    this.consumers.clear();
  }

  now(): Date {
    return this.options.now?.() ?? new Date();
  }

  get db(): Database {
    return this.options.db;
  }

  get leaseMs(): number {
    return this.options.leaseMs ?? 60_000;
  }

  get pollIntervalMs(): number {
    return this.options.pollIntervalMs ?? 500;
  }

  get retry(): RetryPolicy {
    return this.options.retry ?? DEFAULT_RETRY_POLICY;
  }

  reportFailure(failure: HandlerFailure): void {
    (this.options.onHandlerFailure ?? logHandlerFailure)(failure);
  }

  reportPollError(error: unknown): void {
    (this.options.onPollError ?? ((e) => console.error("[embedded queue]", e)))(error);
  }

  private retainDoneMs(): number {
    return this.options.retainDoneMs ?? 24 * 3_600_000;
  }

  private async purgeDone(): Promise<void> {
    const before = new Date(this.now().getTime() - this.retainDoneMs());
    try {
      await this.db.em().nativeDelete(Job, { status: "done", updatedAt: { $lt: before } });
    } catch (error) {
      this.reportPollError(error);
    }
  }
}

/** Due: ready and its time came, or running and its lease ran out. */
const DUE = "(status = 'ready' and run_at <= ? or status = 'running' and locked_until <= ?)";
/**
 * SQLite: the same condition checked again on rows already found by id, its
 * columns kept out of index choice (`+`): without statistics SQLite ran the
 * claim's and the completion's UPDATE through the status indexes, reading
 * every ready (or running) job each time.
 */
const DUE_BY_ID_SQLITE = "(+status = 'ready' and +run_at <= ? or +status = 'running' and +locked_until <= ?)";
const RETURNING = "returning jobs.id, jobs.queue, jobs.payload, jobs.status, jobs.attempts, jobs.run_at, jobs.created_at";
/**
 * The candidates of a claim: the first ready jobs in the (queue, status,
 * run_at) index's order and the first running ones whose lease ran out, each
 * limited, then the first of both. With the two cases OR-ed in one condition
 * both databases read every due job and sorted them all: a whole backlog per
 * claim (docs/performance-log.md#queues-and-webhooks). Parameters: queue, now, limit (ready); queue, now, limit
 * (running); limit.
 */
const firstDue = (status: "ready" | "running", due: "run_at" | "locked_until", lock: string) =>
  `select id, run_at, created_at from jobs where queue = ? and status = '${status}' and ${due} <= ? order by run_at, created_at limit ?${lock}`;
/**
 * PostgreSQL: the candidates in MATERIALIZED CTEs, read once — as an `IN
 * (subquery … limit n for update skip locked)` the planner may run the
 * subquery again per row and, skipping other rows each time, claim more than
 * n. Up to 2n rows are locked for the statement, n claimed.
 */
export const CLAIM_POSTGRESQL = `with ready as materialized (${firstDue("ready", "run_at", " for update skip locked")}),
expired as materialized (${firstDue("running", "locked_until", " for update skip locked")}),
candidates as (select id from (select * from ready union all select * from expired) as due order by run_at, created_at limit ?)
update jobs set status = ?, attempts = jobs.attempts + 1, locked_until = ?, updated_at = ? from candidates where jobs.id = candidates.id and ${DUE} ${RETURNING}`;
/**
 * SQLite (writes serialised, no SKIP LOCKED): one line, as knex's libsql
 * dialect reads rows back only from an `update … returning …` it recognises
 * by " returning ".
 */
export const CLAIM_SQLITE = `update jobs set status = ?, attempts = attempts + 1, locked_until = ?, updated_at = ? where id in (select id from (select * from (${firstDue("ready", "run_at", "")}) union all select * from (${firstDue("running", "locked_until", "")}) order by run_at, created_at limit ?)) and ${DUE_BY_ID_SQLITE} ${RETURNING}`;

/** Marks done the jobs (JSON `[{id, attempts}]`) still running under the attempt that ran them (see finish). */
const completeText = (status: string, owned: string) =>
  `update jobs set status = 'done', last_error = null, locked_until = null, updated_at = ? where ${status} = 'running' and (id, attempts) in (${owned})`;
const COMPLETE_POSTGRESQL = completeText("status", "select x.id, x.attempts from json_to_recordset(?::json) as x(id text, attempts int)");
/** SQLite: by the primary key (`+status`, see DUE_BY_ID_SQLITE). */
export const COMPLETE_SQLITE = completeText("+status", "select json_extract(value, '$.id'), json_extract(value, '$.attempts') from json_each(?)");

interface ClaimedRow {
  id: string;
  queue: string;
  payload: unknown;
  status: Job["status"];
  attempts: number;
  run_at: Date | number | string;
  created_at: Date | number | string;
}

class EmbeddedConsumer {
  private readonly running = new Set<Promise<void>>();
  private timer: NodeJS.Timeout | undefined;
  private polling: Promise<void> | undefined;
  /** A wake-up arrived during a poll: poll again right after it. */
  private pollAgain = false;
  private closed = false;
  /**
   * The last claim filled every free slot, so more jobs may be due. When it
   * did not, the queue had no more due jobs: a finished job then claims
   * nothing until a job is published here or the poll interval comes.
   */
  private mayHaveMore = true;
  /**
   * Free slots worth a claim when a job finishes: each claim is a write (a
   * commit) that reads and sorts the due jobs, so claiming after every
   * finished job (a webhook consumer finishes them one by one) cost more
   * than the jobs. With a quarter of the slots free, the others still run.
   */
  private readonly refill: number;

  constructor(
    readonly queue: string,
    private readonly handler: MessageHandler,
    private readonly prefetch: number,
    private readonly owner: EmbeddedQueue,
  ) {
    this.refill = Math.max(1, Math.floor(prefetch / 4));
  }

  start(): void {
    // Jobs of other processes, delayed ones coming due, lapsed leases.
    this.timer = setInterval(() => {
      this.mayHaveMore = true;
      this.wake();
    }, this.owner.pollIntervalMs);
    this.wake();
  }

  /**
   * Jobs were stored in this process. An idle consumer claims them at once;
   * a busy one leaves them to the claim after its next jobs finish (see
   * jobFinished), which takes everything stored meanwhile at once: under a
   * steady flow (an accept group stored every few milliseconds) one claim per
   * group of finished jobs instead of one per store, and bigger groups for a
   * handler that applies its messages together.
   */
  jobsArrived(): void {
    this.mayHaveMore = true;
    if (this.running.size === 0) this.wake();
  }

  /** A job finished: claims again only when worth it (see worthClaiming). */
  private jobFinished(): void {
    if (this.worthClaiming(this.running.size)) this.wake();
  }

  /** Due jobs may remain and, with `running` jobs still running, enough slots are free (see refill) or none runs any more. */
  private worthClaiming(running: number): boolean {
    return this.mayHaveMore && (this.prefetch - running >= this.refill || running === 0);
  }

  /** Claims due jobs up to the free capacity; one poll at a time per consumer. */
  wake(): void {
    this.exclusive(() => this.poll());
  }

  /** Runs `poll` unless a poll is running (then polls once more after it). */
  private exclusive(poll: () => Promise<void>): void {
    if (this.closed) return;
    if (this.polling) {
      this.pollAgain = true;
      return;
    }
    this.polling = poll()
      .catch((error: unknown) => this.owner.reportPollError(error))
      .finally(() => {
        this.polling = undefined;
        if (this.pollAgain) {
          this.pollAgain = false;
          this.wake();
        }
      });
  }

  async close(): Promise<void> {
    this.closed = true;
    clearInterval(this.timer);
    await this.polling;
    await Promise.allSettled([...this.running]);
  }

  private async poll(): Promise<void> {
    const free = this.prefetch - this.running.size;
    if (free <= 0) return;
    this.runClaimed(await this.claim(this.owner.db.em(), free), free);
  }

  /** Runs the jobs a claim of `asked` returned; fewer means the queue had no more due (see mayHaveMore). */
  private runClaimed(jobs: JobRow[], asked: number): void {
    if (jobs.length < asked) this.mayHaveMore = false;
    for (const job of jobs) {
      const run = this.run(job)
        // The outcome could not be written: the lease runs out and the job is claimed again.
        .catch((error: unknown) => this.owner.reportPollError(error))
        .finally(() => {
          this.running.delete(run);
          this.jobFinished();
        });
      this.running.add(run);
    }
  }

  /**
   * Claims up to `limit` due jobs with one statement (see EmbeddedQueue): the
   * UPDATE re-checks the due condition on each row it changes, so of racing
   * consumers exactly one claims a job; on PostgreSQL the candidates are
   * locked with SKIP LOCKED, so a racer takes other jobs instead of waiting.
   */
  private async claim(em: SqlEntityManager, limit: number): Promise<JobRow[]> {
    if (this.closed) return [];
    const db = this.owner.db;
    const now = this.owner.now();
    const sqlite = db.dialect === "sqlite";
    const at = (date: Date) => (sqlite ? date.getTime() : date);
    const claim = ["running", at(this.leaseEnd(now)), at(now)];
    const candidates = [this.queue, at(now), limit, this.queue, at(now), limit, limit];
    const params = sqlite ? [...claim, ...candidates] : [...candidates, ...claim];
    const rows = await em.execute<ClaimedRow[]>(sqlite ? CLAIM_SQLITE : CLAIM_POSTGRESQL, [...params, at(now), at(now)], "all");
    const time = (value: Date | number | string) => new Date(value).getTime();
    return rows
      .sort((x, y) => time(x.run_at) - time(y.run_at) || time(x.created_at) - time(y.created_at))
      .map((row) => ({
        id: row.id,
        queue: row.queue,
        payload: sqlite ? JSON.parse(row.payload as string) : row.payload,
        status: row.status,
        attempts: row.attempts,
      }));
  }

  private async run(job: JobRow): Promise<void> {
    await yieldToEventLoop();
    const retry = this.owner.retry;
    if (job.attempts > retry.maxAttempts) {
      // Only reachable through lease expiry: the worker died during the last allowed attempt.
      await this.finish(job, { status: "dead", lastError: `worker stopped during attempt ${job.attempts - 1} (lease expired)` });
      return;
    }
    const heartbeat = setInterval(() => void this.renewLease(job), this.owner.leaseMs / 3);
    let failure: { error: unknown } | undefined;
    try {
      await this.handler(job.payload, { id: job.id, attempt: job.attempts });
    } catch (error) {
      failure = { error };
    } finally {
      clearInterval(heartbeat);
    }
    if (!failure) {
      await this.completions.submit("done", job);
      return;
    }
    const delay = retryDelayMs(retry, job.attempts);
    this.owner.reportFailure({ queue: this.queue, id: job.id, attempt: job.attempts, dead: delay === null, error: failure.error });
    const lastError = failure.error instanceof Error ? failure.error.message : String(failure.error);
    await this.finish(
      job,
      delay === null ? { status: "dead", lastError } : { status: "ready", lastError, runAt: new Date(this.owner.now().getTime() + delay) },
    );
  }

  /** Jobs that succeeded together are marked done with one statement (a group commit of prefetched messages ends at once); see complete. */
  private readonly completions = new GroupCommit<JobRow, void>({
    cap: PUBLISH_CAP,
    applyGroup: async (_, jobs) => {
      await this.complete(jobs);
      return jobs.map(() => undefined);
    },
    // Alone (a webhook sending ends by itself), or again after a group failed: when the claim is what failed, the job is marked alone.
    applyOne: (_, job) => this.complete([job]).catch(() => this.finish(job, { status: "done", lastError: null })),
  });

  /**
   * Marks `jobs` done and, when a claim is worth it once they are (see
   * worthClaiming), claims the next jobs in the same transaction: on SQLite
   * every commit blocks the event loop, and a finished group is otherwise
   * followed by a claim of its own at once.
   */
  private async complete(jobs: JobRow[]): Promise<void> {
    const db = this.owner.db;
    const stillRunning = this.running.size - jobs.length;
    if (this.closed || this.polling || !this.worthClaiming(stillRunning)) {
      await this.markDone(db.em(), jobs);
      return;
    }
    const free = this.prefetch - stillRunning;
    const claimed = db.em().transactional(async (em) => {
      await this.markDone(em, jobs);
      return this.claim(em, free);
    });
    this.exclusive(async () => this.runClaimed(await claimed, free));
    await claimed;
  }

  private async markDone(em: SqlEntityManager, jobs: JobRow[]): Promise<void> {
    const sqlite = this.owner.db.dialect === "sqlite";
    const now = this.owner.now();
    const owned = JSON.stringify(jobs.map((job) => ({ id: job.id, attempts: job.attempts })));
    await em.execute(sqlite ? COMPLETE_SQLITE : COMPLETE_POSTGRESQL, [sqlite ? now.getTime() : now, owned], "run");
  }

  /** Records the outcome, unless another worker took the job over after our lease ran out. */
  private async finish(job: JobRow, outcome: { status: "done" | "dead" | "ready"; lastError: string | null; runAt?: Date }) {
    await this.owner.db
      .em()
      .nativeUpdate(Job, { id: job.id, status: "running", attempts: job.attempts }, { ...outcome, lockedUntil: null, updatedAt: this.owner.now() });
  }

  private async renewLease(job: JobRow): Promise<void> {
    const now = this.owner.now();
    try {
      await this.owner.db
        .em()
        .nativeUpdate(Job, { id: job.id, status: "running", attempts: job.attempts }, { lockedUntil: this.leaseEnd(now), updatedAt: now });
    } catch (error) {
      this.owner.reportPollError(error);
    }
  }

  private leaseEnd(now: Date): Date {
    return new Date(now.getTime() + this.owner.leaseMs);
  }
}
