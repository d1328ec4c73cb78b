/**
 * The typical stack: what most teams ship for these two operations. @middy/core with
 * @middy/http-json-body-parser, the AWS SDK v3 DynamoDB client with the document client's
 * marshalling and paginator, built at module load as its docs show. It makes the same store calls
 * as the service. Kept under bench/ for comparison; never shipped.
 */
import { createHash } from "node:crypto";
import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import {
  DynamoDBDocumentClient,
  GetCommand,
  paginateQuery,
  PutCommand,
  UpdateCommand,
} from "@aws-sdk/lib-dynamodb";
import middy from "@middy/core";
import httpJsonBodyParser from "@middy/http-json-body-parser";
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import type { Category } from "../../lib/repositories/categories.ts";

const TableName = process.env.TABLE_NAME ?? "";
const endpoint = process.env.DYNAMODB_ENDPOINT;
const client = DynamoDBDocumentClient.from(new DynamoDBClient(endpoint ? { endpoint } : {}));
const json = { "content-type": "application/json" };
const unauthorized = { statusCode: 401, headers: json, body: '{"message":"unauthorized"}' };

type Result = APIGatewayProxyStructuredResultV2;

async function authorized(event: APIGatewayProxyEventV2): Promise<boolean> {
  const token = event.headers.authorization?.replace(/^Bearer /i, "") ?? "";
  const hash = createHash("sha256").update(token).digest("hex");
  const key = await client.send(
    new GetCommand({ TableName, Key: { pk: "APIKEY", sk: hash }, ConsistentRead: true }),
  );
  return key.Item !== undefined && key.Item.revokedAt === undefined;
}

/** The list's protocol (lib/categoryList/): the counter's version decides whether to re-read. */
let cached: { version: string; body: string } | undefined;

async function query(pk: string, range: string, values: object, projection: string[]) {
  const names = Object.fromEntries(projection.map((name, i) => [`#p${String(i)}`, name]));
  const items: Record<string, unknown>[] = [];
  const pages = paginateQuery(
    { client },
    {
      TableName,
      KeyConditionExpression: `pk = :pk AND ${range}`,
      ExpressionAttributeValues: { ":pk": pk, ...values },
      ExpressionAttributeNames: names,
      ProjectionExpression: Object.keys(names).join(", "),
      ConsistentRead: true,
    },
  );
  for await (const page of pages) items.push(...(page.Items ?? []));
  return items;
}

const sortKey = (id: number): string => String(id).padStart(16, "0");

export const listCategories = middy<APIGatewayProxyEventV2, Result>().handler(async (event) => {
  if (!(await authorized(event))) return unauthorized;
  // The counter and the withdrawals of the last two minutes beside it (lib/table/schema.ts).
  const since = String(Date.now() - 120_000).padStart(15, "0");
  const head = await query(
    "COUNTER",
    "sk BETWEEN :skLow AND :skHigh",
    { ":skLow": `cat#withdrawn#${since}`, ":skHigh": "category" },
    ["sk", "id", "at", "value", "version", "epoch"],
  );
  const counter = head.find((item) => item.sk === "category") as
    { epoch?: string; version?: number; value?: number } | undefined;
  const withdrawn = head.filter((item) => item !== counter);
  const version = `${counter?.epoch ?? ""}.${String(counter?.version ?? 0)}`;
  if (cached?.version === version) return { statusCode: 200, headers: json, body: cached.body };
  const last = counter?.value ?? 0;
  const parts = Math.max(1, Math.min(16, Math.floor(last / 1000)));
  const size = Math.ceil(last / parts);
  const ranges: [number, number][] = [];
  for (let low = 1; low <= last; low += size) ranges.push([low, Math.min(last, low + size - 1)]);
  const pages = await Promise.all(
    ranges.map(([low, high]) =>
      query(
        "CATEGORY",
        "sk BETWEEN :skLow AND :skHigh",
        { ":skLow": sortKey(low), ":skHigh": sortKey(high) },
        ["id", "name", "description", "createdAt"],
      ),
    ),
  );
  const gone = new Set(withdrawn.map((item) => item.id));
  const categories = pages
    .flat()
    .filter((item) => !gone.has(item.id))
    .map(({ id, name, description }) => ({ id, name, description }) as Category);
  cached = { version, body: JSON.stringify(categories) };
  return { statusCode: 200, headers: json, body: cached.body };
});

export const createCategory = middy<APIGatewayProxyEventV2, Result>()
  .use(httpJsonBodyParser())
  .handler(async (event) => {
    if (!(await authorized(event))) return unauthorized;
    const input = event.body as unknown as { name: string; description?: string };
    const counter = await client.send(
      new UpdateCommand({
        TableName,
        Key: { pk: "COUNTER", sk: "category" },
        UpdateExpression: "ADD #v :one, version :one SET epoch = if_not_exists(epoch, :now)",
        ExpressionAttributeNames: { "#v": "value" },
        ExpressionAttributeValues: { ":one": 1, ":now": Date.now().toString(36) },
        ReturnValues: "UPDATED_NEW",
      }),
    );
    const id = Number(counter.Attributes?.value);
    const category: Category = { id, ...input };
    await client.send(
      new PutCommand({
        TableName,
        Item: {
          pk: "CATEGORY",
          sk: String(id).padStart(16, "0"),
          ...category,
          createdAt: new Date().toISOString(),
          requestId: event.requestContext.requestId,
        },
        ConditionExpression: "attribute_not_exists(pk)",
      }),
    );
    await client.send(
      new UpdateCommand({
        TableName,
        Key: { pk: "COUNTER", sk: "category" },
        UpdateExpression: "ADD version :one",
        ExpressionAttributeValues: { ":one": 1 },
      }),
    );
    return { statusCode: 201, headers: json, body: JSON.stringify(category) };
  });
