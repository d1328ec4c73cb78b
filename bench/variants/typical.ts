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

export const listCategories = middy<APIGatewayProxyEventV2, Result>().handler(async (event) => {
  if (!(await authorized(event))) return unauthorized;
  const categories: Category[] = [];
  const pages = paginateQuery(
    { client },
    {
      TableName,
      KeyConditionExpression: "pk = :pk",
      ExpressionAttributeValues: { ":pk": "CATEGORY" },
      ExpressionAttributeNames: { "#n": "name" },
      ProjectionExpression: "id, #n, description",
      ConsistentRead: true,
    },
  );
  for await (const page of pages) categories.push(...((page.Items ?? []) as Category[]));
  return { statusCode: 200, headers: json, body: JSON.stringify(categories) };
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
        UpdateExpression: "ADD #v :one",
        ExpressionAttributeNames: { "#v": "value" },
        ExpressionAttributeValues: { ":one": 1 },
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
    return { statusCode: 201, headers: json, body: JSON.stringify(category) };
  });
