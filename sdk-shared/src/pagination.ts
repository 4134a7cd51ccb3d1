// Auto-pagination of the contract's cursor lists (`data`, or the list's own
// name such as `deliveries`; `has_more`; `starting_after` = the last item's
// `id`), Stripe-style: a list call is a promise of its first page that is also
// an async iterable over every item of every page.
import type { WithResponse } from "./request.js";

export interface Page<Item> {
  data: Item[];
  has_more: boolean;
}

/** A page whose items are under `K` (`data` for most lists, `deliveries` for `GET /v1/deliveries`). */
export type PageOf<K extends string> = { [key in K]: unknown[] } & { has_more: boolean };

/** The item type of a page `P` whose items are under `K`. @public (named in ListPromise, the SDKs' list type) */
export type ItemOf<P, K extends keyof P> = P[K] extends (infer Item)[] ? Item : never;

export interface AutoPagingToArrayOptions {
  /** Stop after this many items (required, at most 10,000, so a huge list is never loaded by accident). */
  limit: number;
}

/** The first page (await it) and every item of every page (`for await`). */
export type ListPromise<P extends PageOf<K>, K extends string = "data"> = Promise<WithResponse<P>> &
  AsyncIterable<ItemOf<P, K>> & {
    /** Collects items across pages, up to `limit`. */
    autoPagingToArray(options: AutoPagingToArrayOptions): Promise<ItemOf<P, K>[]>;
    /** Calls `onItem` for each item across pages; returning `false` stops. */
    autoPagingEach(onItem: (item: ItemOf<P, K>) => void | boolean | Promise<void | boolean>): Promise<void>;
  };

const MAX_TO_ARRAY = 10_000;

/**
 * `fetchPage(startingAfter)` fetches one page; `undefined` asks for the first
 * page the caller's query selects. `cursor` is the item field the next page
 * starts after (`id`, or `version` for configuration versions); `itemsKey`
 * the page field holding the items.
 */
export function listPromise<P extends PageOf<K>, K extends string = "data">(
  fetchPage: (startingAfter: string | number | undefined) => Promise<WithResponse<P>>,
  cursor = "id",
  itemsKey = "data" as K,
): ListPromise<P, K> {
  type Item = ItemOf<P, K>;
  const first = fetchPage(undefined);

  async function* items(): AsyncGenerator<Item> {
    let page: P = await first;
    for (;;) {
      const list = page[itemsKey] as Item[];
      yield* list;
      const last = list[list.length - 1] as Record<string, unknown> | undefined;
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
