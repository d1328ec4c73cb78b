/**
 * Categories and their id counter (keys: lib/table/schema.ts). Ids come from an atomic counter
 * (UpdateItem ADD), so concurrent creates never share one; a create that fails after taking an
 * id leaves a gap, never a duplicate.
 */
import type { Item } from "../dynamodb.ts";
import { isConditionFailure } from "../table/errors.ts";
import { num, text } from "../table/item.ts";
import { keys, partitions } from "../table/schema.ts";
import { TableRepository } from "./tableRepository.ts";

export interface NewCategory {
  readonly name: string;
  readonly description?: string | undefined;
}
export interface Category extends NewCategory {
  readonly id: number;
}

export interface CategoryRepository {
  /** Every category, in id order. */
  list(deadline: number): Promise<Category[]>;
  /** Takes the next id and stores the category under it. */
  create(category: NewCategory, requestId: string, deadline: number): Promise<Category>;
  /** Stores a category under an id taken from `nextId`; a retried own write is no conflict. */
  put(id: number, category: NewCategory, requestId: string, deadline: number): Promise<Category>;
  /** The category stored under an id, if any (strongly consistent). */
  get(id: number, deadline: number): Promise<Category | undefined>;
  /** Takes the next id from the counter; an id taken and never stored is a gap, not a reuse. */
  nextId(deadline: number): Promise<number>;
}

/**
 * Time for withdrawing a write whose outcome is unknown, after the request's deadline: taken from
 * the margin the deadline keeps before the Lambda timeout (lib/middleware.ts, 300 ms).
 */
const withdrawBudgetMs = 200;

export class CategoryStore extends TableRepository implements CategoryRepository {
  async list(deadline: number): Promise<Category[]> {
    const items = await this.table.queryAll(
      {
        partition: partitions.category,
        consistent: true,
        projection: ["id", "name", "description"],
      },
      deadline,
    );
    return items.map(toCategory);
  }

  async create(category: NewCategory, requestId: string, deadline: number): Promise<Category> {
    return this.put(await this.nextId(deadline), category, requestId, deadline);
  }

  /** The put is conditional, so a retried put whose first attempt landed is recognised by its request id. */
  async put(
    id: number,
    category: NewCategory,
    requestId: string,
    deadline: number,
  ): Promise<Category> {
    const stored: Category = { id, ...category };
    const fields = { ...stored, createdAt: new Date(this.now()).toISOString(), requestId };
    try {
      await this.table.put(keys.category(id), fields, deadline, {
        text: "attribute_not_exists(pk)",
      });
      return stored;
    } catch (error) {
      let failure = error;
      try {
        if (isConditionFailure(error) && (await this.#isOwnWrite(id, requestId, deadline))) {
          return stored;
        }
      } catch (readError) {
        failure = readError;
      }
      // An earlier attempt may have landed with its answer lost (a reset, a timeout, a 5xx)
      // before this failure: the client is about to hear an error, so nothing may stay listed.
      await this.#withdraw(id, requestId);
      throw failure;
    }
  }

  async get(id: number, deadline: number): Promise<Category | undefined> {
    const item = await this.table.get(keys.category(id), deadline);
    return item && toCategory(item);
  }

  async nextId(deadline: number): Promise<number> {
    const attributes = await this.table.update(
      keys.categoryCounter,
      { text: "ADD #v :one", names: { "#v": "value" }, values: { ":one": 1 } },
      deadline,
      { returnNew: true },
    );
    const id = Number(attributes?.value?.N);
    if (!Number.isSafeInteger(id) || id < 1) {
      throw new Error(`the category counter returned an unusable id (${String(id)})`);
    }
    return id;
  }

  async #isOwnWrite(id: number, requestId: string, deadline: number): Promise<boolean> {
    const item = await this.table.get(keys.category(id), deadline);
    return item !== undefined && text(item, "requestId") === requestId;
  }

  /**
   * Best effort: deletes this request's own write under `id`, if it landed (conditional on the
   * request id, so it can never remove another request's category). It runs after the deadline,
   * in the margin the deadline keeps before the Lambda timeout.
   */
  async #withdraw(id: number, requestId: string): Promise<void> {
    try {
      await this.table.delete(keys.category(id), this.now() + withdrawBudgetMs, {
        text: "requestId = :me",
        values: { ":me": requestId },
      });
    } catch {
      // Not there (nothing landed), or the store is still unreachable: the error stands either way.
    }
  }
}

function toCategory(item: Item): Category {
  const description = text(item, "description");
  return {
    id: num(item, "id") ?? Number.NaN,
    name: text(item, "name") ?? "",
    ...(description !== undefined && { description }),
  };
}
