/**
 * The limit: bare Lambda handlers making exactly the service's store calls and nothing else (no
 * framework, validation, logging, compression, retries or timeouts), over the least client that
 * talks to DynamoDB: aws4 signing on a keep-alive agent. Written here, not imported from lib/, so
 * no change to the service can move it. It only ever runs against the bench's store, over http.
 */
import { createHash } from "node:crypto";
import http from "node:http";
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import aws4 from "aws4";

type Item = Record<string, { S?: string; N?: string } | undefined>;

const { TABLE_NAME: table = "", AWS_REGION: region = "", DYNAMODB_ENDPOINT = "" } = process.env;
const endpoint = new URL(DYNAMODB_ENDPOINT);
const agent = new http.Agent({ keepAlive: true });
const credentials = {
  accessKeyId: process.env.AWS_ACCESS_KEY_ID ?? "",
  secretAccessKey: process.env.AWS_SECRET_ACCESS_KEY ?? "",
};

function call<Output>(operation: string, input: object): Promise<Output> {
  const body = JSON.stringify(input);
  const target = `DynamoDB_20120810.${operation}`;
  const headers = { "content-type": "application/x-amz-json-1.0", "x-amz-target": target };
  const signed = aws4.sign(
    { host: endpoint.host, path: "/", method: "POST", service: "dynamodb", region, headers, body },
    credentials,
  );
  const options = { hostname: endpoint.hostname, port: endpoint.port, method: "POST", agent };
  return new Promise((resolve, reject) => {
    const request = http.request({ ...options, path: "/", headers: signed.headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on("data", (chunk: Buffer) => chunks.push(chunk));
      response.on("end", () => {
        const text = Buffer.concat(chunks).toString();
        if (response.statusCode === 200) resolve(JSON.parse(text) as Output);
        else reject(new Error(`${operation}: HTTP ${String(response.statusCode)} ${text}`));
      });
    });
    request.on("error", reject);
    request.end(body);
  });
}

const json = { "content-type": "application/json" };
const unauthorized = { statusCode: 401, headers: json, body: '{"message":"unauthorized"}' };

type Result = APIGatewayProxyStructuredResultV2;

async function authorized(event: APIGatewayProxyEventV2): Promise<boolean> {
  const token = event.headers.authorization?.slice("Bearer ".length) ?? "";
  const hash = createHash("sha256").update(token).digest("hex");
  const key = await call<{ Item?: Item }>("GetItem", {
    TableName: table,
    Key: { pk: { S: "APIKEY" }, sk: { S: hash } },
    ConsistentRead: true,
  });
  return key.Item !== undefined && key.Item.revokedAt === undefined;
}

export async function listCategories(event: APIGatewayProxyEventV2): Promise<Result> {
  if (!(await authorized(event))) return unauthorized;
  const categories = [];
  let startKey: Item | undefined;
  do {
    const page = await call<{ Items: Item[]; LastEvaluatedKey?: Item }>("Query", {
      TableName: table,
      KeyConditionExpression: "pk = :pk",
      ExpressionAttributeValues: { ":pk": { S: "CATEGORY" } },
      ExpressionAttributeNames: { "#n": "name" },
      ProjectionExpression: "id, #n, description",
      ConsistentRead: true,
      ...(startKey && { ExclusiveStartKey: startKey }),
    });
    for (const item of page.Items) {
      categories.push({
        id: Number(item.id?.N),
        name: item.name?.S,
        description: item.description?.S,
      });
    }
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return { statusCode: 200, headers: json, body: JSON.stringify(categories) };
}

export async function createCategory(event: APIGatewayProxyEventV2): Promise<Result> {
  if (!(await authorized(event))) return unauthorized;
  const input = JSON.parse(event.body ?? "") as { name: string; description?: string };
  const counter = await call<{ Attributes: Item }>("UpdateItem", {
    TableName: table,
    Key: { pk: { S: "COUNTER" }, sk: { S: "category" } },
    UpdateExpression: "ADD #v :one",
    ExpressionAttributeNames: { "#v": "value" },
    ExpressionAttributeValues: { ":one": { N: "1" } },
    ReturnValues: "UPDATED_NEW",
  });
  const id = Number(counter.Attributes.value?.N);
  await call("PutItem", {
    TableName: table,
    Item: {
      pk: { S: "CATEGORY" },
      sk: { S: String(id).padStart(16, "0") },
      id: { N: String(id) },
      name: { S: input.name },
      ...(input.description !== undefined && { description: { S: input.description } }),
      createdAt: { S: new Date().toISOString() },
      requestId: { S: event.requestContext.requestId },
    },
    ConditionExpression: "attribute_not_exists(pk)",
  });
  return { statusCode: 201, headers: json, body: JSON.stringify({ id, ...input }) };
}
