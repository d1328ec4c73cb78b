/**
 * The reads a list cache needs (lib/categoryList/): the counter item, which carries the list
 * version, and categories by id range or by id. All strongly consistent: a list must see every
 * create answered 201 before it began.
 */
import type { CounterState, Found } from "../categoryList/cache.ts";
import { emptyCounter } from "../categoryList/cache.ts";
import type { Item } from "../dynamodb.ts";
import { num, text } from "../table/item.ts";
import { categorySortKey, keys, partitions } from "../table/schema.ts";
import { toCategory, withdrawingPrefix } from "./categories.ts";
import { TableRepository } from "./tableRepository.ts";

export interface CategoryListSource {
  /** The counter: last id taken, list version, withdrawals (one read unit). */
  readCounter(deadline: number): Promise<CounterState>;
  /** The categories with ids in [low, high], in id order. */
  readRange(low: number, high: number, deadline: number): Promise<Found[]>;
  /** The categories under these ids that exist, in any order. */
  readIds(ids: readonly number[], deadline: number): Promise<Found[]>;
}

const listed = ["id", "name", "description", "createdAt"];

export class CategoryReader extends TableRepository implements CategoryListSource {
  async readCounter(deadline: number): Promise<CounterState> {
    const item = await this.table.get(keys.categoryCounter, deadline);
    if (!item) return emptyCounter;
    return {
      epoch: text(item, "epoch") ?? emptyCounter.epoch,
      version: num(item, "version") ?? 0,
      withdrawals: num(item, "withdrawals") ?? 0,
      lastId: num(item, "value") ?? 0,
      withdrawing: Object.keys(item)
        .filter((name) => name.startsWith(withdrawingPrefix))
        .map((name) => Number(name.slice(withdrawingPrefix.length))),
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
}

function toFound(item: Item): Found {
  return { category: toCategory(item), createdAt: Date.parse(text(item, "createdAt") ?? "") };
}
