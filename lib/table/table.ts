/**
 * One stage's table, as the repositories use it: consistent reads, puts, updates and deletes
 * (each optionally conditional) and a paginating Query. Requests are assembled here, so key
 * layout (lib/table/schema.ts), marshalling (lib/table/item.ts) and expression placeholders are
 * handled once. Calls go through the signed client (lib/dynamodb.ts) with the request's deadline.
 */
import { randomUUID } from "node:crypto";
import type { DynamoDb, Item } from "../dynamodb.ts";
import { DynamoDbError } from "./errors.ts";
import type { Expression, QuerySpec } from "./expressions.ts";
import { expressions, projectionOf, queryRequest } from "./expressions.ts";
import type { Fields } from "./item.ts";
import { keyItem, toItem } from "./item.ts";
import type { Key } from "./schema.ts";

export type { Expression, QuerySpec } from "./expressions.ts";

interface Page {
  readonly Items?: readonly Item[];
  readonly LastEvaluatedKey?: Item;
}

/** One write of a transaction (Table.transactWrite), or of the order that stands in for one. */
export type Write = WriteOn &
  (
    | { readonly kind: "put"; readonly fields: Fields }
    | { readonly kind: "update"; readonly update: Expression }
    | { readonly kind: "delete" }
  );

interface WriteOn {
  readonly key: Key;
  readonly condition?: Expression | undefined;
  /** Where there are no transactions: what takes this write back if a later one is refused. */
  readonly undo?: Write | undefined;
}

/** BatchGetItem's limit of keys per request. */
const batchGetLimit = 100;

interface BatchGetOutput {
  readonly Responses?: Readonly<Record<string, readonly Item[]>>;
  readonly UnprocessedKeys?: Readonly<Record<string, { readonly Keys?: readonly Item[] }>>;
}

export class Table {
  readonly #db: DynamoDb;
  readonly #name: string;
  /** Whether the store has TransactWriteItems; unknown until the first transaction. */
  #transactions: boolean | undefined;

  constructor(db: DynamoDb, name: string) {
    this.#db = db;
    this.#name = name;
  }

  /** The item under `key`, read strongly consistently. */
  async get(key: Key, deadline: number): Promise<Item | undefined> {
    const output: { Item?: Item } = await this.#db.call(
      "GetItem",
      { TableName: this.#name, Key: keyItem(key), ConsistentRead: true },
      deadline,
    );
    return output.Item;
  }

  async put(key: Key, fields: Fields, deadline: number, condition?: Expression): Promise<void> {
    const Item = { ...keyItem(key), ...toItem(fields) };
    await this.#db.call(
      "PutItem",
      {
        TableName: this.#name,
        Item,
        ...expressions({ ConditionExpression: condition }),
        ...returnOnFailure(condition),
      },
      deadline,
    );
  }

  /**
   * The item a conditional write under `key` collided with, from its failure: DynamoDB and
   * DynamoDB Local answer it with the failure (ALL_OLD, asked by every conditional write here).
   * dynalite 4.0.0 ignores ReturnValuesOnConditionCheckFailure, so there alone it is read
   * (strongly consistent) after the failure.
   */
  async collidedWith(
    failure: DynamoDbError,
    key: Key,
    deadline: number,
  ): Promise<Item | undefined> {
    return (failure.item as Item | undefined) ?? (await this.get(key, deadline));
  }

  /** Applies `update`; with `returnNew`, answers the updated attributes (UPDATED_NEW). */
  async update(
    key: Key,
    update: Expression,
    deadline: number,
    options: { readonly condition?: Expression; readonly returnNew?: boolean } = {},
  ): Promise<Item | undefined> {
    const output: { Attributes?: Item } = await this.#db.call(
      "UpdateItem",
      {
        TableName: this.#name,
        Key: keyItem(key),
        ...expressions({ UpdateExpression: update, ConditionExpression: options.condition }),
        ...returnOnFailure(options.condition),
        ...(options.returnNew && { ReturnValues: "UPDATED_NEW" }),
      },
      deadline,
    );
    return output.Attributes;
  }

  async delete(key: Key, deadline: number, condition?: Expression): Promise<void> {
    await this.#db.call(
      "DeleteItem",
      {
        TableName: this.#name,
        Key: keyItem(key),
        ...expressions({ ConditionExpression: condition }),
        ...returnOnFailure(condition),
      },
      deadline,
    );
  }

  /** One write on its own, as a transaction would make it. */
  async write(write: Write, deadline: number): Promise<void> {
    if (write.kind === "put") await this.put(write.key, write.fields, deadline, write.condition);
    else if (write.kind === "update")
      await this.update(write.key, write.update, deadline, {
        ...(write.condition && { condition: write.condition }),
      });
    else await this.delete(write.key, deadline, write.condition);
  }

  /**
   * Makes every write or none (TransactWriteItems). A write whose condition does not hold cancels
   * them all and is thrown as a ConditionalCheckFailedException naming it, like a single write's.
   * False, with nothing written, where the store has no transactions: dynalite 4.0.0 answers
   * UnknownOperationException (DynamoDB and DynamoDB Local have them); the caller then writes in
   * an order of its own that is safe to stop at any point.
   * One ClientRequestToken for every attempt the client makes: an attempt retried after its answer
   * was lost (a timeout, a reset) is the same transaction to the store, answered as made, not
   * made again and refused by its own conditions.
   */
  async transactWrite(writes: readonly Write[], deadline: number): Promise<boolean> {
    if (this.#transactions === false) return false;
    try {
      await this.#db.call(
        "TransactWriteItems",
        {
          TransactItems: writes.map((write) => this.#transactItem(write)),
          ClientRequestToken: randomUUID(),
        },
        deadline,
      );
    } catch (error) {
      if (!(error instanceof DynamoDbError)) throw error;
      if (error.type === "UnknownOperationException") {
        this.#transactions = false;
        return false;
      }
      const refused = error.reasons.indexOf("ConditionalCheckFailed");
      if (error.type === "TransactionCanceledException" && refused >= 0)
        throw new DynamoDbError(
          "ConditionalCheckFailedException",
          error.statusCode,
          `the condition of write ${refused + 1} of ${writes.length} did not hold`,
        );
      throw error;
    }
    this.#transactions = true;
    return true;
  }

  #transactItem(write: Write): object {
    const common = {
      TableName: this.#name,
      ...expressions({
        ConditionExpression: write.condition,
        ...(write.kind === "update" && { UpdateExpression: write.update }),
      }),
    };
    if (write.kind === "put")
      return { Put: { ...common, Item: { ...keyItem(write.key), ...toItem(write.fields) } } };
    if (write.kind === "update") return { Update: { ...common, Key: keyItem(write.key) } };
    return { Delete: { ...common, Key: keyItem(write.key) } };
  }

  /**
   * The items under `keys`, read strongly consistently, in any order; missing ones are left out.
   * BatchGetItem takes 100 keys a request; keys it leaves unprocessed (throttling) are asked again.
   */
  async batchGet(
    keyList: readonly Key[],
    deadline: number,
    projection?: readonly string[],
  ): Promise<Item[]> {
    const chunks: Item[][] = [];
    // Stryker disable next-line EqualityOperator: `<=` only adds an empty last chunk, which sends no request
    for (let i = 0; i < keyList.length; i += batchGetLimit) {
      chunks.push(keyList.slice(i, i + batchGetLimit).map(keyItem));
    }
    const pages = await Promise.all(
      chunks.map((chunk) => this.#batchGetChunk(chunk, deadline, projection)),
    );
    return pages.flat();
  }

  async #batchGetChunk(
    chunk: readonly Item[],
    deadline: number,
    projection: readonly string[] | undefined,
  ): Promise<Item[]> {
    const found: Item[] = [];
    let pending = chunk;
    for (let attempt = 0; pending.length > 0; attempt++) {
      if (attempt > 0)
        await new Promise((done) => setTimeout(done, 25 * 2 ** Math.min(attempt, 5)));
      const output: BatchGetOutput = await this.#db.call(
        "BatchGetItem",
        {
          RequestItems: {
            [this.#name]: {
              Keys: pending,
              ConsistentRead: true,
              ...expressions({ ProjectionExpression: projection && projectionOf(projection) }),
            },
          },
        },
        deadline,
      );
      found.push(...(output.Responses?.[this.#name] ?? []));
      pending = output.UnprocessedKeys?.[this.#name]?.Keys ?? [];
    }
    return found;
  }

  /** Every matching item, reading as many 1 MB pages as there are. */
  async queryAll(spec: QuerySpec, deadline: number): Promise<Item[]> {
    const items: Item[] = [];
    for await (const page of this.queryPages(spec, deadline)) items.push(...page);
    return items;
  }

  /** The matching items page by page, so a caller can stop as soon as it has what it needs. */
  async *queryPages(spec: QuerySpec, deadline: number): AsyncGenerator<readonly Item[]> {
    const request = queryRequest(this.#name, spec);
    let startKey: Item | undefined;
    do {
      const page: Page = await this.#db.call(
        "Query",
        { ...request, ...(startKey && { ExclusiveStartKey: startKey }) },
        deadline,
      );
      yield page.Items ?? [];
      startKey = page.LastEvaluatedKey;
    } while (startKey);
  }
}

/** A failed condition answers the item it met (ALL_OLD): no read unit, no extra call. */
function returnOnFailure(condition: Expression | undefined): object {
  return condition ? { ReturnValuesOnConditionCheckFailure: "ALL_OLD" } : {};
}
