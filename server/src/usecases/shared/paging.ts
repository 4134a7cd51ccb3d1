/**
 * Stripe-style list paging, newest first: rows are ordered by (`field` desc,
 * id desc) and `starting_after` names the last row the caller has seen.
 */

/** The filter for the rows after `after` in (field desc, id desc) order: older, or equally old with a smaller id. */
export function olderThan<F extends string>(field: F, after: { id: string } & Record<F, Date>): Record<string, unknown> {
  return { $or: [{ [field]: { $lt: after[field] } }, { [field]: after[field], id: { $lt: after.id } }] };
}

/** `{data, has_more}` from rows fetched with `limit + 1`: the extra row only says that more follow. */
export function pageOf<Row, View>(rows: Row[], limit: number, view: (row: Row) => View): { data: View[]; has_more: boolean } {
  return { data: rows.slice(0, limit).map(view), has_more: rows.length > limit };
}
