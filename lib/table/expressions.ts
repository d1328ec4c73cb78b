/**
 * DynamoDB request expressions, assembled once for every call of ./table.ts: key conditions,
 * projections, conditions and updates, each with its own placeholders merged into one request.
 */
import type { AttributeValue } from "../dynamodb.ts";
import type { Fields } from "./item.ts";
import { toAttribute } from "./item.ts";

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

export interface QuerySpec {
  readonly partition: string;
  /** The sort-key range, both ends included (BETWEEN); the whole partition when omitted. */
  readonly range?: { readonly between: readonly [string, string] };
  readonly filter?: Expression;
  /** Attributes to read; all when omitted. */
  readonly projection?: readonly string[];
  readonly consistent?: boolean;
}

export function queryRequest(tableName: string, spec: QuerySpec): object {
  return {
    TableName: tableName,
    ...expressions({
      KeyConditionExpression: keyCondition(spec),
      FilterExpression: spec.filter,
      ProjectionExpression: spec.projection && projectionOf(spec.projection),
    }),
    ...(spec.consistent && { ConsistentRead: true }),
  };
}

/** Every attribute through a placeholder, so reserved words (`name`) need no special case. */
export function projectionOf(attributes: readonly string[]): Expression {
  const placeholders = attributes.map((name, i) => [`#p${i}`, name] as const);
  return {
    text: placeholders.map(([placeholder]) => placeholder).join(", "),
    names: Object.fromEntries(placeholders),
  };
}

function keyCondition({ partition, range }: QuerySpec): Expression {
  if (!range) return { text: "pk = :pk", values: { ":pk": partition } };
  return {
    text: "pk = :pk AND sk BETWEEN :skLow AND :skHigh",
    values: { ":pk": partition, ":skLow": range.between[0], ":skHigh": range.between[1] },
  };
}

/** Sets each named expression and merges all their placeholders into one request. */
export function expressions(named: Readonly<Record<string, Expression | undefined>>): object {
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
