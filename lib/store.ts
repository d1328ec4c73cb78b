/**
 * Categories in the stage's single DynamoDB table.
 *
 * Table layout (pk: S, sk: S), one table per stage:
 *   pk "CATEGORY"  sk "<id, 16 digits zero-padded>"  id N, name S, description S?, createdAt S, requestId S
 *   pk "COUNTER"   sk "category"                     value N   (last id handed out)
 *
 * All categories share one partition so a single Query reads them in id order (the sort key is
 * the zero-padded id; 16 digits hold every safe integer). Ids come from an atomic counter
 * (UpdateItem ADD), so concurrent creates never share one; a create that fails after taking an
 * id leaves a gap, never a duplicate.
 */
import type { DynamoDb, Item } from "./dynamodb.ts";
import { DynamoDbError } from "./dynamodb.ts";

/**
 * Time for withdrawing a write whose outcome is unknown, after the request's deadline: taken from
 * the margin the deadline keeps before the Lambda timeout (lib/middleware.ts, 300 ms).
 */
const withdrawBudgetMs = 200;

export interface NewCategory {
  readonly name: string;
  readonly description?: string | undefined;
}
export interface Category extends NewCategory {
  readonly id: number;
}

const categoryPartition = "CATEGORY";
const counterKey = { pk: { S: "COUNTER" }, sk: { S: "category" } };

export function categorySortKey(id: number): string {
  return String(id).padStart(16, "0");
}

interface QueryOutput {
  readonly Items?: readonly Item[];
  readonly LastEvaluatedKey?: Item;
}
interface UpdateOutput {
  readonly Attributes?: Item;
}
interface GetOutput {
  readonly Item?: Item;
}

export class CategoryStore {
  readonly #db: DynamoDb;
  readonly #table: string;
  readonly #now: () => number;

  constructor(db: DynamoDb, tableName: string, now: () => number = Date.now) {
    this.#db = db;
    this.#table = tableName;
    this.#now = now;
  }

  /** Every category, in id order, reading as many 1 MB pages as the table has. */
  async list(deadline: number): Promise<Category[]> {
    const categories: Category[] = [];
    let startKey: Item | undefined;
    do {
      const page: QueryOutput = await this.#db.call(
        "Query",
        {
          TableName: this.#table,
          KeyConditionExpression: "pk = :pk",
          ExpressionAttributeValues: { ":pk": { S: categoryPartition } },
          ExpressionAttributeNames: { "#n": "name" },
          ConsistentRead: true,
          ProjectionExpression: "id, #n, description",
          ...(startKey && { ExclusiveStartKey: startKey }),
        },
        deadline,
      );
      for (const item of page.Items ?? []) categories.push(toCategory(item));
      startKey = page.LastEvaluatedKey;
    } while (startKey);
    return categories;
  }

  /** Takes the next id and stores the category under it. */
  async create(category: NewCategory, requestId: string, deadline: number): Promise<Category> {
    return this.put(await this.nextId(deadline), category, requestId, deadline);
  }

  /**
   * Stores a category under an id taken from `nextId`. The put is conditional, so a retried put
   * whose first attempt did land is recognised by its request id instead of being stored twice.
   */
  async put(
    id: number,
    category: NewCategory,
    requestId: string,
    deadline: number,
  ): Promise<Category> {
    const stored: Category = { id, ...category };
    try {
      await this.#db.call(
        "PutItem",
        {
          TableName: this.#table,
          Item: {
            pk: { S: categoryPartition },
            sk: { S: categorySortKey(id) },
            ...toAttributes(stored),
            createdAt: { S: new Date(this.#now()).toISOString() },
            requestId: { S: requestId },
          },
          ConditionExpression: "attribute_not_exists(pk)",
        },
        deadline,
      );
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

  /** Whether the item under `id` is this request's own write (a retried put that had landed). */
  async #isOwnWrite(id: number, requestId: string, deadline: number): Promise<boolean> {
    return (await this.#get(id, deadline))?.requestId?.S === requestId;
  }

  /**
   * Best effort: deletes this request's own write under `id`, if it landed (conditional on the
   * request id, so it can never remove another request's category). It runs after the deadline,
   * in the margin the deadline keeps before the Lambda timeout.
   */
  async #withdraw(id: number, requestId: string): Promise<void> {
    try {
      await this.#db.call(
        "DeleteItem",
        {
          TableName: this.#table,
          Key: { pk: { S: categoryPartition }, sk: { S: categorySortKey(id) } },
          ConditionExpression: "requestId = :me",
          ExpressionAttributeValues: { ":me": { S: requestId } },
        },
        Date.now() + withdrawBudgetMs,
      );
    } catch {
      // Not there (nothing landed), or the store is still unreachable: the error stands either way.
    }
  }

  /** The category stored under an id, if any (strongly consistent). */
  async get(id: number, deadline: number): Promise<Category | undefined> {
    const item = await this.#get(id, deadline);
    return item && toCategory(item);
  }

  /** Takes the next id from the counter; an id taken and never stored is a gap, not a reuse. */
  async nextId(deadline: number): Promise<number> {
    const output: UpdateOutput = await this.#db.call(
      "UpdateItem",
      {
        TableName: this.#table,
        Key: counterKey,
        UpdateExpression: "ADD #v :one",
        ExpressionAttributeNames: { "#v": "value" },
        ExpressionAttributeValues: { ":one": { N: "1" } },
        ReturnValues: "UPDATED_NEW",
      },
      deadline,
    );
    const id = Number(output.Attributes?.value?.N);
    if (!Number.isSafeInteger(id) || id < 1) {
      throw new Error(`the category counter returned an unusable id (${String(id)})`);
    }
    return id;
  }

  async #get(id: number, deadline: number): Promise<Item | undefined> {
    const output: GetOutput = await this.#db.call(
      "GetItem",
      {
        TableName: this.#table,
        Key: { pk: { S: categoryPartition }, sk: { S: categorySortKey(id) } },
        ConsistentRead: true,
      },
      deadline,
    );
    return output.Item;
  }
}

export function isConditionFailure(error: unknown): boolean {
  return error instanceof DynamoDbError && error.type === "ConditionalCheckFailedException";
}

function toAttributes(category: Category): Item {
  return {
    id: { N: String(category.id) },
    name: { S: category.name },
    ...(category.description !== undefined && { description: { S: category.description } }),
  };
}

function toCategory(item: Item): Category {
  const description = item.description?.S;
  return {
    id: Number(item.id?.N),
    name: item.name?.S ?? "",
    ...(description !== undefined && { description }),
  };
}
