/**
 * Runs `work` for each item, one after the other, for the jobs that sweep
 * every club or participant: one item's failure (a club whose configuration
 * no longer validates, a deadlock) must not hold up the rest. Every failure
 * is thrown at the end in one AggregateError, each named by `label`.
 */
export async function runEach<T>(items: Iterable<T> | AsyncIterable<T>, label: (item: T) => string, work: (item: T) => Promise<void>): Promise<void> {
  const failures: Error[] = [];
  for await (const item of items) {
    try {
      await work(item);
    } catch (err) {
      failures.push(new Error(`${label(item)} failed: ${err instanceof Error ? err.message : String(err)}`, { cause: err }));
    }
  }
  if (failures.length > 0)
    throw new AggregateError(failures, `${failures.length} of the job's items failed: ${failures.map((failure) => failure.message).join("; ")}`);
}
