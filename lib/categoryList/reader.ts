/**
 * A container's list cache, the repository every list reads through (state machine and
 * correctness argument: ./cache.ts). A list is two steps: `version()` reads the counter and the
 * recent withdrawals (one Query, one read unit), which is all a 304 needs; `categories()` then
 * brings the cache up to that version, reading only what changed, and answers from it. The
 * counter read must come first: a create landing between the two only makes the next list
 * refresh again, never miss it. Every read is strongly consistent: a list must see every create
 * answered 201 before it began.
 */
import type { Category, NewCategory } from "../category.ts";
import { categoryResource } from "../category.ts";
import type { Clock } from "../clock.ts";
import type { DynamoDb, Item } from "../dynamodb.ts";
import { storedOf } from "../repositories/categories.ts";
import type { Identified, Resource } from "../resource.ts";
import { num, text } from "../table/item.ts";
import { idSortKey, isWithdrawalOf, keys, listVersionRange, partitions } from "../table/schema.ts";
import { Table } from "../table/table.ts";
import type { Found, ListSnapshot, ListVersion, Refresh, Withdrawal } from "./cache.ts";
import { emptyCounter, planRefresh, withdrawalsSince } from "./cache.ts";
import type { SplitOptions } from "./ranges.ts";
import { coldReadSplit, splitIds } from "./ranges.ts";
import { applyRefresh } from "./snapshot.ts";

export class ResourceList<New, Stored extends Identified> {
  readonly #table: Table;
  readonly #resource: Resource<New, Stored>;
  readonly #now: Clock;
  readonly #split: SplitOptions;
  /** What a list reads of each item: what it answers, and `createdAt` for its cache. */
  readonly #listed: readonly string[];
  #snapshot: ListSnapshot<Stored> | undefined;

  constructor(
    db: DynamoDb,
    tableName: string,
    resource: Resource<New, Stored>,
    now: Clock,
    split: SplitOptions = coldReadSplit,
  ) {
    this.#table = new Table(db, tableName);
    this.#resource = resource;
    this.#now = now;
    this.#split = split;
    this.#listed = ["id", ...resource.fieldNames, "createdAt"];
  }

  /**
   * Where the store is now, step one of every list: the counter (last id taken, list version)
   * and the withdrawals recorded since `withdrawalsSince`: one Query, one read unit while they
   * come to under 4 KB.
   */
  async version(deadline: number): Promise<ListVersion> {
    const readAt = this.#now();
    const since = withdrawalsSince(this.#snapshot, readAt);
    const { name } = this.#resource;
    const counterKey = keys.counter(name);
    const items = await this.#table.queryAll(
      {
        partition: counterKey.pk,
        range: { between: listVersionRange(name, since) },
        consistent: true,
        projection: ["sk", "id", "at", "value", "version", "epoch"],
      },
      deadline,
    );
    const item = items.find((found) => text(found, "sk") === counterKey.sk);
    const counter = item && {
      epoch: text(item, "epoch") ?? emptyCounter.epoch,
      version: num(item, "version") ?? 0,
      lastId: num(item, "value") ?? 0,
    };
    const withdrawals = items
      // Stryker disable next-line StringLiteral: the Query projects sk, so every item has one
      .filter((found) => isWithdrawalOf(name, text(found, "sk") ?? ""))
      .map((found): Withdrawal => ({
        id: num(found, "id") ?? Number.NaN,
        at: num(found, "at") ?? 0,
      }));
    return { counter: counter ?? emptyCounter, withdrawals, readAt, since };
  }

  /** Every visible item as of `version` (read in this request), in id order. */
  async categories(version: ListVersion, deadline: number): Promise<readonly Stored[]> {
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

  async #read(refresh: Refresh, deadline: number): Promise<readonly Found<Stored>[]> {
    const [above, rechecked] = await Promise.all([
      this.#readRange(refresh.above + 1, refresh.upTo, deadline),
      this.#readIds(refresh.recheck, deadline),
    ]);
    return [...above, ...rechecked];
  }

  /** Ids [low, high] as parallel `sk BETWEEN` Queries: at most `maxParts` (splitIds), all at once. */
  async #readRange(low: number, high: number, deadline: number): Promise<readonly Found<Stored>[]> {
    const parts = await Promise.all(
      splitIds(low, high, this.#split).map(async ([a, b]) => {
        const between = [idSortKey(a), idSortKey(b)] as const;
        const items = await this.#table.queryAll(
          {
            partition: partitions.resource(this.#resource.name),
            range: { between },
            consistent: true,
            projection: this.#listed,
          },
          deadline,
        );
        return items.map((found) => this.#found(found));
      }),
    );
    return parts.flat();
  }

  /** The items under these ids that exist, in any order (no ids: no request). */
  async #readIds(ids: readonly number[], deadline: number): Promise<readonly Found<Stored>[]> {
    const { name } = this.#resource;
    const itemKeys = ids.map((id) => keys.resource(name, id));
    const items = await this.#table.batchGet(itemKeys, deadline, this.#listed);
    return items.map((found) => this.#found(found));
  }

  #found(item: Item): Found<Stored> {
    const category = storedOf(this.#resource, item);
    // Stryker disable next-line StringLiteral: Date.parse answers NaN for "" and any other non-date alike
    return { category, createdAt: Date.parse(text(item, "createdAt") ?? "") };
  }
}

/** The categories' list cache, bound to their model (lib/category.ts). */
export class CategoryList extends ResourceList<NewCategory, Category> {
  constructor(db: DynamoDb, tableName: string, now: Clock, split: SplitOptions = coldReadSplit) {
    super(db, tableName, categoryResource, now, split);
  }
}
