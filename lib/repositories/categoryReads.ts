/**
 * The reads a list cache needs (lib/categoryList/): the counter item, which carries the list
 * version, with the withdrawals recorded beside it; and categories by id range or by id. All
 * strongly consistent: a list must see every create answered 201 before it began.
 */
import type { CounterState, Found, Withdrawal } from "../categoryList/cache.ts";
import { emptyCounter } from "../categoryList/cache.ts";
import type { Item } from "../dynamodb.ts";
import { num, text } from "../table/item.ts";
import { categorySortKey, keys, partitions, withdrawalsFrom } from "../table/schema.ts";
import { toCategory } from "./categories.ts";
import { TableRepository } from "./tableRepository.ts";

export interface CategoryListSource {
  /**
   * The counter (last id taken, list version) and the withdrawals recorded since `since` (epoch
   * ms): one Query, one read unit while they come to under 4 KB.
   */
  readCounter(since: number, deadline: number): Promise<CounterReading>;
  /** The categories with ids in [low, high], in id order. */
  readRange(low: number, high: number, deadline: number): Promise<Found[]>;
  /** The categories under these ids that exist, in any order. */
  readIds(ids: readonly number[], deadline: number): Promise<Found[]>;
}

export interface CounterReading {
  readonly counter: CounterState;
  readonly withdrawals: readonly Withdrawal[];
}

const listed = ["id", "name", "description", "createdAt"];

export class CategoryReader extends TableRepository implements CategoryListSource {
  async readCounter(since: number, deadline: number): Promise<CounterReading> {
    const counterKey = keys.categoryCounter;
    const items = await this.table.queryAll(
      {
        partition: counterKey.pk,
        range: { between: [withdrawalsFrom(since), counterKey.sk] },
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
      .filter((found) => found !== item)
      .map((found) => ({ id: num(found, "id") ?? Number.NaN, at: num(found, "at") ?? 0 }));
    return { counter: counter ?? emptyCounter, withdrawals };
  }

  async readRange(low: number, high: number, deadline: number): Promise<Found[]> {
    const items = await this.table.queryAll(
      {
        partition: partitions.category,
        range: { between: [categorySortKey(low), categorySortKey(high)] },
        consistent: true,
        projection: listed,
      },
      deadline,
    );
    return items.map(toFound);
  }

  async readIds(ids: readonly number[], deadline: number): Promise<Found[]> {
    const items = await this.table.batchGet(ids.map(keys.category), deadline, listed);
    return items.map(toFound);
  }
}

function toFound(item: Item): Found {
  return { category: toCategory(item), createdAt: Date.parse(text(item, "createdAt") ?? "") };
}
