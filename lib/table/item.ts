/**
 * Marshalling between plain values and DynamoDB attribute values. The service stores flat items
 * of strings and numbers only, so two cases cover it; a field left undefined is left out of the
 * item (never stored as null), which is how a category's optional fields stay optional.
 */
import type { AttributeValue, Item } from "../dynamodb.ts";
import type { Key } from "./schema.ts";

export type Scalar = string | number;
export type Fields = Readonly<Record<string, Scalar | undefined>>;

export function toAttribute(value: Scalar): AttributeValue {
  return typeof value === "number" ? { N: String(value) } : { S: value };
}

export function toItem(fields: Fields): Item {
  const item: Record<string, AttributeValue> = {};
  for (const [name, value] of Object.entries(fields)) {
    if (value !== undefined) item[name] = toAttribute(value);
  }
  return item;
}

export function keyItem(key: Key): Item {
  return { pk: { S: key.pk }, sk: { S: key.sk } };
}

/** A string attribute, or undefined when the item does not have it. */
export function text(item: Item, name: string): string | undefined {
  return item[name]?.S;
}

/** A number attribute, or undefined when the item does not have it. */
export function num(item: Item, name: string): number | undefined {
  const value = item[name]?.N;
  return value === undefined ? undefined : Number(value);
}
