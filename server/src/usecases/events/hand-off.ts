import type { Database } from "../../db/orm.js";
import type { Scope } from "../../db/scope.js";

/**
 * How an event accepted with `Prefer: respond-async` reaches the event queue.
 *
 * By default through the transactional outbox: the accept writes an `event`
 * outbox row and the relay publishes it after the commit. When the queue is
 * the embedded one — jobs in this same database — the accept writes the job
 * row itself, in its own transaction: as durable as the event (committed
 * together), and the relay's work per accept group (reading the rows,
 * inserting the jobs, marking the rows: on SQLite two more commits, each
 * blocking the event loop) is not done at all.
 */
export interface JobHandOff {
  /** The queue's job row that hands the events of `payload` over, as the queue itself stores a published message. */
  row(scope: Scope, payload: Record<string, unknown>, at: Date): object;
  /** After the commit: the queue's consumers in this process look for the new jobs at once. */
  stored(): void;
}

const handOffs = new WeakMap<Database, JobHandOff>();

/** Accepted events of `db` are handed over as job rows from now on (see JobHandOff); the function returned undoes it. */
export function handEventsToJobs(db: Database, handOff: JobHandOff): () => void {
  handOffs.set(db, handOff);
  return () => {
    if (handOffs.get(db) === handOff) handOffs.delete(db);
  };
}

/** The job hand-off of `db`, or undefined: accepted events go through the outbox. */
export function jobHandOff(db: Database): JobHandOff | undefined {
  return handOffs.get(db);
}
