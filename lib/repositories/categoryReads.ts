/**
 * The reads a list cache needs (lib/categoryList/): the counter item, which carries the list
 * version, and categories by id range or by id. All strongly consistent: a list must see every
 * create answered 201 before it began.
 */
import type { CounterState, Found, Withdrawal } from "../categoryList/cache.ts";
import { emptyCounter } from "../categoryList/cache.ts";
import type { Item } from "../dynamodb.ts";
import { num, text } from "../table/item.ts";
import { categorySortKey, keys, partitions, withdrawalTimeKey } from "../table/schema.ts";
import { toCategory } from "./categories.ts";
import { TableRepository } from "./tableRepository.ts";

export interface CategoryListSource {
  /** The counter: last id taken and list version (one read unit). */
  readCounter(deadline: number): Promise<CounterState>;
  /** The categories with ids in [low, high], in id order. */
  readRange(low: number, high: number, deadline: number): Promise<Found[]>;
  /** The categories under these ids that exist, in any order. */
  readIds(ids: readonly number[], deadline: number): Promise<Found[]>;
  /** The withdrawals recorded after `since` (epoch ms). */
  readWithdrawn(since: number, deadline: number): Promise<Withdrawal[]>;
}

const listed = ["id", "name", "description", "createdAt"];

export class CategoryReader extends TableRepository implements CategoryListSource {
  async readCounter(deadline: number): Promise<CounterState> {
    const item = await this.table.get(keys.categoryCounter, deadline);
    if (!item) return emptyCounter;
    return {
      epoch: text(item, "epoch") ?? emptyCounter.epoch,
      version: num(item, "version") ?? 0,
      lastId: num(item, "value") ?? 0,
    };
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

  async readWithdrawn(since: number, deadline: number): Promise<Withdrawal[]> {
    const items = await this.table.queryAll(
      {
        partition: partitions.withdrawn,
        range: { above: withdrawalTimeKey(since) },
        consistent: true,
        projection: ["id", "at"],
      },
      deadline,
    );
    return items.map((item) => ({ id: num(item, "id") ?? Number.NaN, at: num(item, "at") ?? 0 }));
  }
}

function toFound(item: Item): Found {
  return { category: toCategory(item), createdAt: Date.parse(text(item, "createdAt") ?? "") };
}
