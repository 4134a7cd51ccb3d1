// Auto-pagination of the contract's cursor lists (`data`, `has_more`,
// `starting_after` = the last item's `id`), Stripe-style: a list call is a
// promise of its first page that is also an async iterable over every item
// of every page.
import type { WithResponse } from "./request.js";

export interface Page<Item> {
  data: Item[];
  has_more: boolean;
}

export interface AutoPagingToArrayOptions {
  /** Stop after this many items (required, at most 10,000, so a huge list is never loaded by accident). */
  limit: number;
}

/** The first page (await it) and every item of every page (`for await`). */
export type ListPromise<P extends Page<unknown>> = Promise<WithResponse<P>> &
  AsyncIterable<P["data"][number]> & {
    /** Collects items across pages, up to `limit`. */
    autoPagingToArray(options: AutoPagingToArrayOptions): Promise<P["data"][number][]>;
    /** Calls `onItem` for each item across pages; returning `false` stops. */
    autoPagingEach(onItem: (item: P["data"][number]) => void | boolean | Promise<void | boolean>): Promise<void>;
  };

const MAX_TO_ARRAY = 10_000;

/**
 * `fetchPage(startingAfter)` fetches one page; `undefined` asks for the first
 * page the caller's query selects. `cursor` is the item field the next page
 * starts after (`id`, or `version` for configuration versions).
 */
export function listPromise<P extends Page<unknown>>(
  fetchPage: (startingAfter: string | number | undefined) => Promise<WithResponse<P>>,
  cursor = "id",
): ListPromise<P> {
  type Item = P["data"][number];
  const first = fetchPage(undefined);

  async function* items(): AsyncGenerator<Item> {
    let page: P = await first;
    for (;;) {
      yield* page.data as Item[];
      const last = page.data[page.data.length - 1] as Record<string, unknown> | undefined;
      const after = last?.[cursor];
      if (!page.has_more || (typeof after !== "string" && typeof after !== "number")) return;
      page = await fetchPage(after);
    }
  }

  async function autoPagingEach(onItem: (item: Item) => void | boolean | Promise<void | boolean>): Promise<void> {
    for await (const item of items()) if ((await onItem(item)) === false) return;
  }

  async function autoPagingToArray({ limit }: AutoPagingToArrayOptions): Promise<Item[]> {
    if (!Number.isInteger(limit) || limit < 1 || limit > MAX_TO_ARRAY) {
      throw new RangeError(`autoPagingToArray needs a limit between 1 and ${MAX_TO_ARRAY}`);
    }
    const collected: Item[] = [];
    for await (const item of items()) {
      collected.push(item);
      if (collected.length >= limit) break;
    }
    return collected;
  }

  return Object.assign(first, { [Symbol.asyncIterator]: items, autoPagingToArray, autoPagingEach });
}
