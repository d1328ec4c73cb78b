/**
 * What the limit and typical handlers do, written once: the service's store calls and nothing
 * else (no validation, logging, compression, retries or timeouts), over the client each variant
 * brings (limit.ts: bare aws4 signing; typical.ts: the AWS SDK v3 document client under middy).
 * Nothing is imported from lib/ but the Category model (lib/category.ts: which fields a category
 * has), so no other change to the service can move them.
 */
import { createHash } from "node:crypto";
import type { APIGatewayProxyEventV2 as Event } from "aws-lambda";
import type { APIGatewayProxyStructuredResultV2 as Result } from "aws-lambda";
import type { NewCategory } from "../../lib/category.ts";
import { categoryOf, fieldNames } from "../../lib/category.ts";

export type { Event, NewCategory, Result };
export type Input = Record<string, unknown>;
/** An item as the document client gives it: these handlers store strings and numbers only. */
export type Item = Record<string, string | number | undefined>;
type Output = { Item?: Item | undefined; Attributes?: Item | undefined };
type Db = {
  send(operation: "GetItem" | "UpdateItem" | "PutItem", input: Input): Promise<Output>;
  /** Every page's items. */
  query(input: Input): Promise<Item[]>;
};
export type Handlers = {
  list(event: Event): Promise<Result>;
  create(event: Event, input: NewCategory): Promise<Result>;
};

const json = { "content-type": "application/json" };
const unauthorized = { statusCode: 401, headers: json, body: '{"message":"unauthorized"}' };
const counterKey = { pk: "COUNTER", sk: "category" };
const sortKey = (id: number): string => String(id).padStart(16, "0");

export function comparisonHandlers(db: Db, TableName: string): Handlers {
  /**
   * The key's id when the key is accepted (stored with a created category, as ours does). A
   * verdict is kept for API_KEY_CACHE_SECONDS, as ours keeps it (lib/auth.ts), so that a warm
   * call makes ours' store calls.
   */
  const verdicts = new Map<string, { keyId: string | undefined; until: number }>();
  const keepMs = Number(process.env.API_KEY_CACHE_SECONDS ?? "0") * 1000;
  const keyIdOf = async (event: Event): Promise<string | undefined> => {
    const token = event.headers.authorization?.replace(/^Bearer /i, "") ?? "";
    const kept = verdicts.get(token);
    if (kept !== undefined && kept.until > Date.now()) return kept.keyId;
    const Key = { pk: "APIKEY", sk: createHash("sha256").update(token).digest("hex") };
    const { Item } = await db.send("GetItem", { TableName, Key, ConsistentRead: true });
    const keyId =
      Item !== undefined && Item.revokedAt === undefined ? String(Item.keyId) : undefined;
    verdicts.set(token, { keyId, until: Date.now() + keepMs });
    return keyId;
  };
  const authorized = async (event: Event): Promise<boolean> => (await keyIdOf(event)) !== undefined;
  const query = (pk: string, condition: string, values: Input, projection: string[]) =>
    db.query({
      ...{ TableName, KeyConditionExpression: `pk = :pk AND ${condition}`, ConsistentRead: true },
      ExpressionAttributeValues: { ":pk": pk, ...values },
      ExpressionAttributeNames: Object.fromEntries(projection.map((name) => [`#${name}`, name])),
      ProjectionExpression: projection.map((name) => `#${name}`).join(", "),
    });
  /** lib/categoryList/'s protocol: the counter's version decides whether to re-read. */
  let cached: { version: string; body: string } | undefined;

  async function list(event: Event): Promise<Result> {
    if (!(await authorized(event))) return unauthorized;
    // The counter and, beside it, the withdrawals of the last two minutes, newest first: their
    // times count down from 10^15 - 1 (lib/table/schema.ts).
    const since = String(999_999_999_999_999 - (Date.now() - 120_000)).padStart(15, "0");
    const bounds = { ":low": "category", ":high": `category#withdrawn#${since}#~` };
    const fields = ["sk", "id", "at", "value", "version", "epoch"];
    const head = await query("COUNTER", "sk BETWEEN :low AND :high", bounds, fields);
    const counter = head.find((item) => item.sk === "category");
    const version = `${counter?.epoch ?? ""}.${counter?.version ?? 0}`;
    if (cached?.version !== version) {
      // A cold read: ids 1..last in up to 16 parallel ranges, less the withdrawn ones.
      const last = Number(counter?.value ?? 0);
      const size = Math.ceil(last / Math.max(1, Math.min(16, Math.floor(last / 1000))));
      const fields = ["id", ...fieldNames, "createdAt"];
      const range = (low: number) => {
        const bounds = { ":low": sortKey(low), ":high": sortKey(Math.min(last, low + size - 1)) };
        return query("CATEGORY", "sk BETWEEN :low AND :high", bounds, fields);
      };
      const pages = [];
      for (let low = 1; low <= last; low += size) pages.push(range(low));
      const gone = new Set(head.filter((item) => item !== counter).map((item) => item.id));
      const categories = (await Promise.all(pages))
        .flat()
        .filter((item) => !gone.has(item.id))
        .map((item) => categoryOf(Number(item.id), item as NewCategory));
      cached = { version, body: JSON.stringify(categories) };
    }
    return { statusCode: 200, headers: json, body: cached.body };
  }

  async function create(event: Event, input: NewCategory): Promise<Result> {
    const keyId = await keyIdOf(event);
    if (keyId === undefined) return unauthorized;
    const { Attributes } = await db.send("UpdateItem", {
      ...{ TableName, Key: counterKey, ReturnValues: "UPDATED_NEW" },
      UpdateExpression: "ADD #v :one, version :one SET epoch = if_not_exists(epoch, :now)",
      ExpressionAttributeNames: { "#v": "value" },
      ExpressionAttributeValues: { ":one": 1, ":now": Date.now().toString(36) },
    });
    const category = categoryOf(Number(Attributes?.value), input);
    const { requestId } = event.requestContext;
    const stored = { createdAt: new Date().toISOString(), requestId, keyId };
    await db.send("PutItem", {
      ...{ TableName, ConditionExpression: "attribute_not_exists(pk)" },
      // As ours (lib/table/table.ts): a collided write answers the item it collided with.
      ReturnValuesOnConditionCheckFailure: "ALL_OLD",
      Item: { pk: "CATEGORY", sk: sortKey(category.id), ...category, ...stored },
    });
    await db.send("UpdateItem", {
      ...{ TableName, Key: counterKey, UpdateExpression: "ADD version :one" },
      ExpressionAttributeValues: { ":one": 1 },
    });
    return { statusCode: 201, headers: json, body: JSON.stringify(category) };
  }
  return { list, create };
}
