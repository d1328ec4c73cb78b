/**
 * What a recorded DynamoDB call needs from IAM: for each item it touches, the IAM action that
 * authorizes it and the partition key value (what the `dynamodb:LeadingKeys` condition key
 * holds). Transactions are authorized per item by the item-level actions (a Put inside
 * TransactWriteItems needs dynamodb:PutItem); batches by their own actions.
 */
import type { RecordedCall } from "./recordingDynamoProxy.ts";

export interface ItemAccess {
  readonly label: string;
  /** e.g. "dynamodb:GetItem". */
  readonly action: string;
  readonly table: string;
  /** The partition key value; undefined for calls with no leading key (Scan, DescribeTable). */
  readonly leadingKey: string | undefined;
  readonly index: string | undefined;
  readonly operation: string;
}

type Item = Record<string, { S?: string; N?: string; B?: string } | undefined>;
interface Input {
  TableName?: string;
  IndexName?: string;
  Key?: Item;
  Item?: Item;
  KeyConditionExpression?: string;
  ExpressionAttributeNames?: Record<string, string>;
  ExpressionAttributeValues?: Item;
  TransactItems?: Record<string, Input | undefined>[];
  RequestItems?: Record<
    string,
    | { Keys?: Item[] }
    | { PutRequest?: { Item?: Item }; DeleteRequest?: { Key?: Item } }[]
    | undefined
  >;
}

const transactActions: Record<string, string> = {
  Put: "PutItem",
  Update: "UpdateItem",
  Delete: "DeleteItem",
  ConditionCheck: "ConditionCheckItem",
  Get: "GetItem",
};

export function accessesOf(call: RecordedCall, partitionKey: string): ItemAccess[] {
  const input = (call.input ?? {}) as Input;
  const access = (
    operation: string,
    action: string,
    part: Input,
    leadingKey: string | undefined,
  ): ItemAccess => ({
    label: call.label,
    operation,
    action: `dynamodb:${action}`,
    table: part.TableName ?? "",
    leadingKey,
    index: part.IndexName,
  });
  const keyOf = (item: Item | undefined): string | undefined => {
    const value = item?.[partitionKey];
    return value?.S ?? value?.N ?? value?.B;
  };

  switch (call.operation) {
    case "GetItem":
    case "UpdateItem":
    case "DeleteItem":
      return [access(call.operation, call.operation, input, keyOf(input.Key))];
    case "PutItem":
      return [access(call.operation, "PutItem", input, keyOf(input.Item))];
    case "Query":
      return [access("Query", "Query", input, queriedPartition(input, partitionKey))];
    case "TransactWriteItems":
    case "TransactGetItems":
      return (input.TransactItems ?? []).flatMap((entry) =>
        Object.entries(entry).map(([kind, part]) =>
          access(
            call.operation,
            transactActions[kind] ?? kind,
            part ?? {},
            keyOf(part?.Key ?? part?.Item),
          ),
        ),
      );
    case "BatchGetItem":
      return Object.entries(input.RequestItems ?? {}).flatMap(([table, request]) =>
        (Array.isArray(request) ? [] : (request?.Keys ?? [])).map((key) =>
          access("BatchGetItem", "BatchGetItem", { TableName: table }, keyOf(key)),
        ),
      );
    case "BatchWriteItem":
      return Object.entries(input.RequestItems ?? {}).flatMap(([table, requests]) =>
        (Array.isArray(requests) ? requests : []).map((request) =>
          access(
            "BatchWriteItem",
            "BatchWriteItem",
            { TableName: table },
            keyOf(request.PutRequest?.Item ?? request.DeleteRequest?.Key),
          ),
        ),
      );
    default:
      return [access(call.operation, call.operation, input, undefined)];
  }
}

/** The partition key value a Query's KeyConditionExpression fixes (`pk = :v` or `#n = :v`). */
function queriedPartition(input: Input, partitionKey: string): string | undefined {
  const expression = input.KeyConditionExpression ?? "";
  const names = input.ExpressionAttributeNames ?? {};
  const values = input.ExpressionAttributeValues ?? {};
  const operand = String.raw`(#?[A-Za-z0-9_]+|:[A-Za-z0-9_]+)`;
  for (const match of expression.matchAll(new RegExp(`${operand}\\s*=\\s*${operand}`, "g"))) {
    const [, left = "", right = ""] = match;
    const [name, value] = left.startsWith(":") ? [right, left] : [left, right];
    const attribute = name.startsWith("#") ? names[name] : name;
    if (attribute === partitionKey && value.startsWith(":")) {
      const attributeValue = values[value];
      return attributeValue?.S ?? attributeValue?.N ?? attributeValue?.B;
    }
  }
  return undefined;
}
