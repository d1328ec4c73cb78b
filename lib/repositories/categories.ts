/**
 * Categories and their id counter (keys: lib/table/schema.ts; fields: lib/category.ts). Ids come
 * from an atomic counter (UpdateItem ADD), so concurrent creates never share one; a create that
 * fails after taking an id leaves a gap, never a duplicate.
 */
import type { Category, NewCategory } from "../category.ts";
import { categoryOf, fieldNames } from "../category.ts";
import type { Clock } from "../clock.ts";
import { systemClock } from "../clock.ts";
import type { DynamoDb, Item } from "../dynamodb.ts";
import { conditionHeld, isConditionFailure } from "../table/errors.ts";
import type { Fields } from "../table/item.ts";
import { num, text } from "../table/item.ts";
import { keys, partitions, withdrawalRecordMs } from "../table/schema.ts";
import { Table } from "../table/table.ts";

/**
 * Time for withdrawing a write whose outcome is unknown, after the request's deadline: taken from
 * the margin the deadline keeps before the Lambda timeout (lib/middleware.ts, 300 ms).
 */
const withdrawBudgetMs = 200;
/** When each withdrawal step must be done by, from the start of the withdrawal. */
const withdrawShareMs = { record: 80, delete: 150 } as const;

export class CategoryStore {
  readonly #table: Table;
  readonly #now: Clock;

  constructor(db: DynamoDb, tableName: string, now: Clock = systemClock) {
    this.#table = new Table(db, tableName);
    this.#now = now;
  }

  /** Every category, in id order. */
  async list(deadline: number): Promise<Category[]> {
    const items = await this.#table.queryAll(
      { partition: partitions.category, consistent: true, projection: ["id", ...fieldNames] },
      deadline,
    );
    return items.map(toCategory);
  }

  /**
   * Takes the next id and stores the category under it, with the request id and the creating
   * key's id (audit, never returned: auditFields below).
   */
  async create(
    category: NewCategory,
    requestId: string,
    deadline: number,
    keyId?: string,
  ): Promise<Category> {
    return this.put(await this.nextId(deadline), category, requestId, deadline, keyId);
  }

  /**
   * Stores a category under an id taken from `nextId`. The put is conditional, so a retried put
   * whose first attempt landed is recognised by its request id.
   */
  async put(
    id: number,
    category: NewCategory,
    requestId: string,
    deadline: number,
    keyId?: string,
  ): Promise<Category> {
    const stored = categoryOf(id, category);
    const fields = { ...stored, ...auditFields(this.#now(), requestId, keyId) };
    try {
      await this.#putOwn(id, fields, requestId, deadline);
    } catch (failure) {
      // An earlier attempt may have landed with its answer lost (a reset, a timeout, a 5xx)
      // before this failure: the client is about to hear an error, so nothing may stay listed.
      await this.#withdraw(id, requestId);
      throw failure;
    }
    // Moves the list's ETag past any tag sent while this put was in flight. Best effort: lists
    // find the category without it (lib/categoryList/cache.ts), so its failure fails nothing.
    await this.#quietly(() => this.commit(deadline));
    return stored;
  }

  /** A conditional put; a retried put whose first attempt landed is recognised as our own. */
  async #putOwn(id: number, fields: Fields, requestId: string, deadline: number): Promise<void> {
    const key = keys.category(id);
    try {
      await this.#table.put(key, fields, deadline, { text: "attribute_not_exists(pk)" });
    } catch (error) {
      if (!isConditionFailure(error)) throw error;
      const found = await this.#table.collidedWith(error, key, deadline);
      if (found === undefined || text(found, "requestId") !== requestId) throw error;
    }
  }

  /**
   * Bumps the list version (lib/categoryList/cache.ts): after every put (best effort, for the
   * ETag), and, required, after a put under an id an earlier request took (Idempotency-Key).
   */
  async commit(deadline: number): Promise<void> {
    await this.#table.update(
      keys.categoryCounter,
      { text: "ADD version :one", values: { ":one": 1 } },
      deadline,
    );
  }

  /** The category stored under an id, if any (strongly consistent). */
  async get(id: number, deadline: number): Promise<Category | undefined> {
    const item = await this.#table.get(keys.category(id), deadline);
    return item && toCategory(item);
  }

  /** Takes the next id from the counter; an id taken and never stored is a gap, not a reuse. */
  async nextId(deadline: number): Promise<number> {
    const attributes = await this.#table.update(
      keys.categoryCounter,
      {
        // Taking an id is what bumps the list version: no write of its own (cache.ts).
        text: "ADD #v :one, version :one SET epoch = if_not_exists(epoch, :now)",
        names: { "#v": "value" },
        values: { ":one": 1, ":now": this.#now().toString(36) },
      },
      deadline,
      { returnNew: true },
    );
    // Stryker disable next-line OptionalChaining: an ADD with UPDATED_NEW always answers `value`; without it both forms throw
    const id = Number(attributes?.value?.N);
    if (!Number.isSafeInteger(id) || id < 1) {
      throw new Error(`the category counter returned an unusable id (${String(id)})`);
    }
    return id;
  }

  /**
   * Best effort: takes back this request's own write under `id`, which may have landed, and may
   * already be in list caches (lib/categoryList/cache.ts). It runs after the deadline, in the margin
   * the deadline keeps before the Lambda timeout, in three steps with a share of it each:
   *   1. record the withdrawal (an item beside the counter): lists that may hold the category drop it;
   *   2. delete it (conditional on the request id: never another request's category);
   *   3. after a delete, bump the list version so every cache refreshes.
   * The record is an item of its own beside the counter (read with it by every list), not an
   * update of the counter item, so it is written even when updates of the counter are failing.
   */
  async #withdraw(id: number, requestId: string): Promise<void> {
    const start = this.#now();
    await this.#quietly(() =>
      this.#table.put(
        keys.withdrawal(start, id),
        { id, at: start, ttl: Math.floor((start + withdrawalRecordMs) / 1000) },
        start + withdrawShareMs.record,
      ),
    );
    const deletion = this.#table.delete(keys.category(id), start + withdrawShareMs.delete, {
      text: "requestId = :me",
      values: { ":me": requestId },
    });
    // Stryker disable next-line ArrowFunction: undefined is as falsy as false below
    const deleted = await conditionHeld(deletion).catch(() => false);
    if (!deleted) return;
    await this.#quietly(() => this.commit(start + withdrawBudgetMs));
  }

  /** The error the client hears is the create's own: a failing cleanup adds nothing to it. */
  async #quietly(write: () => Promise<unknown>): Promise<void> {
    try {
      await write();
    } catch {
      // The store is still unreachable; the withdrawal did what it could.
    }
  }
}

/**
 * Who made a category and when: stored with it, never listed or returned (toCategory and the
 * list's projection leave them out). `requestId` is API Gateway's request id (the answer's
 * Request-Id; it also tells a retried own write apart), `keyId` the creating API key's id.
 */
export function auditFields(
  now: number,
  requestId: string,
  keyId: string | undefined,
): { createdAt: string; requestId: string; keyId?: string | undefined } {
  return { createdAt: new Date(now).toISOString(), requestId, keyId };
}

/** The category in an item: its id and every field of the model it holds. */
export function toCategory(item: Item): Category {
  const input: Record<string, string | undefined> = {};
  // A field the item lacks is undefined here, and categoryOf leaves it out.
  for (const field of fieldNames) input[field] = text(item, field);
  return categoryOf(num(item, "id") ?? Number.NaN, input as NewCategory);
}
