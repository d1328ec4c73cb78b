/**
 * One stage's table, as the repositories use it: consistent reads, puts, updates and deletes
 * (each optionally conditional) and a paginating Query. Requests are assembled here, so key
 * layout (lib/table/schema.ts), marshalling (lib/table/item.ts) and expression placeholders are
 * handled once. Calls go through the signed client (lib/dynamodb.ts) with the request's deadline.
 */
import type { AttributeValue, DynamoDb, Item } from "../dynamodb.ts";
import type { Fields } from "./item.ts";
import { keyItem, toAttribute, toItem } from "./item.ts";
import type { Key } from "./schema.ts";

/**
 * An update, condition or filter expression with its own `#name` and `:value` placeholders.
 * Placeholders of the expressions combined in one request must not clash; `:pk` and `:sk…` are
 * the key condition's.
 */
export interface Expression {
  readonly text: string;
  readonly names?: Readonly<Record<string, string>>;
  readonly values?: Fields;
}

/** The sort-key part of a Query: a closed range or everything after a point. */
export type SortRange =
  { readonly between: readonly [string, string] } | { readonly above: string };

export interface QuerySpec {
  readonly partition: string;
  readonly range?: SortRange;
  readonly filter?: Expression;
  /** Attributes to read; all when omitted. */
  readonly projection?: readonly string[];
  readonly consistent?: boolean;
  /** Asks DynamoDB for each page's consumed capacity (ReturnConsumedCapacity TOTAL). */
  readonly onCapacity?: (capacityUnits: number) => void;
}

interface Page {
  readonly Items?: readonly Item[];
  readonly LastEvaluatedKey?: Item;
  readonly ConsumedCapacity?: { readonly CapacityUnits?: number };
}

export class Table {
  readonly #db: DynamoDb;
  readonly #name: string;

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
      { TableName: this.#name, Item, ...expressions({ ConditionExpression: condition }) },
      deadline,
    );
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
      },
      deadline,
    );
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
      spec.onCapacity?.(page.ConsumedCapacity?.CapacityUnits ?? 0);
      yield page.Items ?? [];
      startKey = page.LastEvaluatedKey;
    } while (startKey);
  }
}

function queryRequest(tableName: string, spec: QuerySpec): object {
  return {
    TableName: tableName,
    ...expressions({
      KeyConditionExpression: keyCondition(spec),
      FilterExpression: spec.filter,
      ProjectionExpression: spec.projection && projectionOf(spec.projection),
    }),
    ...(spec.consistent && { ConsistentRead: true }),
    ...(spec.onCapacity && { ReturnConsumedCapacity: "TOTAL" }),
  };
}

/** Every attribute through a placeholder, so reserved words (`name`) need no special case. */
function projectionOf(attributes: readonly string[]): Expression {
  const placeholders = attributes.map((name, i) => [`#p${i}`, name] as const);
  return {
    text: placeholders.map(([placeholder]) => placeholder).join(", "),
    names: Object.fromEntries(placeholders),
  };
}

function keyCondition({ partition, range }: QuerySpec): Expression {
  if (!range) return { text: "pk = :pk", values: { ":pk": partition } };
  if ("above" in range) {
    return {
      text: "pk = :pk AND sk > :skAbove",
      values: { ":pk": partition, ":skAbove": range.above },
    };
  }
  return {
    text: "pk = :pk AND sk BETWEEN :skLow AND :skHigh",
    values: { ":pk": partition, ":skLow": range.between[0], ":skHigh": range.between[1] },
  };
}

/** Sets each named expression and merges all their placeholders into one request. */
function expressions(named: Readonly<Record<string, Expression | undefined>>): object {
  const request: Record<string, unknown> = {};
  const names: Record<string, string> = {};
  const values: Record<string, AttributeValue> = {};
  for (const [field, expression] of Object.entries(named)) {
    if (!expression) continue;
    request[field] = expression.text;
    Object.assign(names, expression.names);
    for (const [placeholder, value] of Object.entries(expression.values ?? {})) {
      if (value !== undefined) values[placeholder] = toAttribute(value);
    }
  }
  if (Object.keys(names).length > 0) request.ExpressionAttributeNames = names;
  if (Object.keys(values).length > 0) request.ExpressionAttributeValues = values;
  return request;
}
