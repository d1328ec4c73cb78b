/**
 * A container's list cache (state machine and correctness argument: ./cache.ts). A list is two
 * steps: `version()` reads the counter (one read unit), which is all a 304 needs; `categories()`
 * then brings the cache up to that version, reading only what changed, and answers from it.
 * The counter read must come first: a create landing between the two only makes the next list
 * refresh again, never miss it. For a minute after a create, lists also read the withdrawals.
 */
import type { Clock } from "../clock.ts";
import type { Category } from "../repositories/categories.ts";
import type { CategoryListSource } from "../repositories/categoryReads.ts";
import type { CounterState, Found, ListSnapshot, Refresh } from "./cache.ts";
import { applyRefresh, planRefresh } from "./cache.ts";
import type { SplitOptions } from "./ranges.ts";
import { coldReadSplit, mapLimited, splitIds } from "./ranges.ts";

export interface CategoryListing {
  /** Where the store is now: step one of every list. */
  version(deadline: number): Promise<CounterState>;
  /** Every visible category as of `counter` (read by `version` in this request), in id order. */
  categories(counter: CounterState, deadline: number): Promise<readonly Category[]>;
}

export class CategoryList implements CategoryListing {
  readonly #source: CategoryListSource;
  readonly #now: Clock;
  readonly #split: SplitOptions;
  #snapshot: ListSnapshot | undefined;

  constructor(source: CategoryListSource, now: Clock, split: SplitOptions = coldReadSplit) {
    this.#source = source;
    this.#now = now;
    this.#split = split;
  }

  version(deadline: number): Promise<CounterState> {
    return this.#source.readCounter(deadline);
  }

  async categories(counter: CounterState, deadline: number): Promise<readonly Category[]> {
    const snapshot = this.#snapshot;
    const now = this.#now();
    const refresh = planRefresh(snapshot, counter, now);
    const since = refresh.withdrawnSince;
    const [found, withdrawn] = await Promise.all([
      this.#read(refresh, deadline),
      since === undefined ? [] : this.#source.readWithdrawn(since, deadline),
    ]);
    const next = applyRefresh(snapshot, counter, refresh, found, withdrawn, now);
    // Concurrent lists (the local server) may finish out of order: keep the newest state.
    const kept = this.#snapshot?.counter;
    if (!kept || kept.epoch !== next.counter.epoch || kept.version <= next.counter.version) {
      this.#snapshot = next;
    }
    return next.categories;
  }

  async #read(refresh: Refresh, deadline: number): Promise<readonly Found[]> {
    const [above, rechecked] = await Promise.all([
      this.#readRange(refresh.above + 1, refresh.upTo, deadline),
      refresh.recheck.length > 0 ? this.#source.readIds(refresh.recheck, deadline) : [],
    ]);
    return [...above, ...rechecked];
  }

  /** Ids [low, high] as parallel `sk BETWEEN` Queries, at most `maxParts` at once. */
  async #readRange(low: number, high: number, deadline: number): Promise<readonly Found[]> {
    const parts = await mapLimited(
      splitIds(low, high, this.#split),
      this.#split.maxParts,
      ([a, b]) => this.#source.readRange(a, b, deadline),
    );
    return parts.flat();
  }
}
