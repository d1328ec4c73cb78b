/**
 * A resource's items and its id counter (keys: lib/table/schema.ts; fields: its model,
 * lib/resource.ts), categories being today's one. Ids come from an atomic counter (UpdateItem
 * ADD), so concurrent creates never share one; a create that fails after taking an id leaves a
 * gap, never a duplicate.
 */
import type { Category, NewCategory } from "../category.ts";
import { categoryResource } from "../category.ts";
import type { Clock } from "../clock.ts";
import { systemClock } from "../clock.ts";
import type { DynamoDb, Item } from "../dynamodb.ts";
import { conditionHeld, isConditionFailure } from "../table/errors.ts";
import type { Fields } from "../table/item.ts";
import { num, text } from "../table/item.ts";
import type { Identified, Resource } from "../resource.ts";
import { keys, partitions, ttlAttribute, withdrawalRecordMs } from "../table/schema.ts";
import { Table } from "../table/table.ts";

/**
 * Time for withdrawing a write whose outcome is unknown, after the request's deadline: taken from
 * the margin the deadline keeps before the Lambda timeout (lib/middleware.ts, 300 ms).
 */
const withdrawBudgetMs = 200;
/** When each withdrawal step must be done by, from the start of the withdrawal. */
const withdrawShareMs = { record: 80, delete: 150 } as const;

export class ResourceStore<New, Stored extends Identified> {
  readonly #table: Table;
  readonly #resource: Resource<New, Stored>;
  readonly #now: Clock;
  readonly #counter: ReturnType<typeof keys.counter>;

  constructor(
    db: DynamoDb,
    tableName: string,
    resource: Resource<New, Stored>,
    now: Clock = systemClock,
  ) {
    this.#table = new Table(db, tableName);
    this.#resource = resource;
    this.#now = now;
    this.#counter = keys.counter(resource.name);
  }

  /** Every item, in id order. */
  async list(deadline: number): Promise<Stored[]> {
    const items = await this.#table.queryAll(
      {
        partition: partitions.resource(this.#resource.name),
        consistent: true,
        projection: ["id", ...this.#resource.fieldNames],
      },
      deadline,
    );
    return items.map((item) => storedOf(this.#resource, item));
  }

  /**
   * Takes the next id and stores the item under it, with the request id and the creating
   * key's id (audit, never returned: auditFields below).
   */
  async create(input: New, requestId: string, deadline: number, keyId?: string): Promise<Stored> {
    return this.put(await this.nextId(deadline), input, requestId, deadline, keyId);
  }

  /**
   * Stores an item under an id taken from `nextId`. The put is conditional, so a retried put
   * whose first attempt landed is recognised by its request id.
   */
  async put(
    id: number,
    input: New,
    requestId: string,
    deadline: number,
    keyId?: string,
  ): Promise<Stored> {
    const stored = this.#resource.of(id, input);
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
    const key = keys.resource(this.#resource.name, id);
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
      this.#counter,
      { text: "ADD version :one", values: { ":one": 1 } },
      deadline,
    );
  }

  /** The item stored under an id, if any (strongly consistent). */
  async get(id: number, deadline: number): Promise<Stored | undefined> {
    const item = await this.#table.get(keys.resource(this.#resource.name, id), deadline);
    return item && storedOf(this.#resource, item);
  }

  /** Takes the next id from the counter; an id taken and never stored is a gap, not a reuse. */
  async nextId(deadline: number): Promise<number> {
    const attributes = await this.#table.update(
      this.#counter,
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
      throw new Error(`the ${this.#resource.name} counter returned an unusable id (${String(id)})`);
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
        keys.withdrawal(this.#resource.name, start, id),
        { id, at: start, [ttlAttribute]: Math.floor((start + withdrawalRecordMs) / 1000) },
        start + withdrawShareMs.record,
      ),
    );
    const key = keys.resource(this.#resource.name, id);
    const deletion = this.#table.delete(key, start + withdrawShareMs.delete, {
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
 * Who made a category and when: stored with it, never listed or returned (storedOf and the
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

/** The resource in an item: its id and every field of the model it holds. */
export function storedOf<New, Stored extends Identified>(
  resource: Resource<New, Stored>,
  item: Item,
): Stored {
  const input: Record<string, string | undefined> = {};
  // A field the item lacks is undefined here, and the model leaves it out.
  for (const field of resource.fieldNames) input[field] = text(item, field);
  // The item holds what a New held when it was put, each field as it was checked then.
  return resource.of(num(item, "id") ?? Number.NaN, input as New);
}

/** Categories: the store bound to their model (lib/category.ts). */
export class CategoryStore extends ResourceStore<NewCategory, Category> {
  constructor(db: DynamoDb, tableName: string, now: Clock = systemClock) {
    super(db, tableName, categoryResource, now);
  }
}
