/**
 * A container's list cache (state machine and correctness argument: ./cache.ts). A list is two
 * steps: `version()` reads the counter and the recent withdrawals (one Query, one read unit),
 * which is all a 304 needs; `categories()` then brings the cache up to that version, reading
 * only what changed, and answers from it. The counter read must come first: a create landing
 * between the two only makes the next list refresh again, never miss it.
 */
import type { Clock } from "../clock.ts";
import type { Category } from "../repositories/categories.ts";
import type { CategoryListSource } from "../repositories/categoryReads.ts";
import type { Found, ListSnapshot, ListVersion, Refresh } from "./cache.ts";
import { planRefresh, withdrawalsSince } from "./cache.ts";
import type { SplitOptions } from "./ranges.ts";
import { coldReadSplit, mapLimited, splitIds } from "./ranges.ts";
import { applyRefresh } from "./snapshot.ts";

export interface CategoryListing {
  /** Where the store is now: step one of every list. */
  version(deadline: number): Promise<ListVersion>;
  /** Every visible category as of `version` (read in this request), in id order. */
  categories(version: ListVersion, deadline: number): Promise<readonly Category[]>;
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

  async version(deadline: number): Promise<ListVersion> {
    const readAt = this.#now();
    const since = withdrawalsSince(this.#snapshot, readAt);
    const { counter, withdrawals } = await this.#source.readCounter(since, deadline);
    return { counter, withdrawals, readAt, since };
  }

  async categories(version: ListVersion, deadline: number): Promise<readonly Category[]> {
    const snapshot = this.#snapshot;
    const refresh = planRefresh(snapshot, version.counter, version.readAt);
    const next = applyRefresh(snapshot, version, refresh, await this.#read(refresh, deadline));
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
