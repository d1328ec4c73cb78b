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

/** The list's protocol (lib/categoryList/): the counter's version decides whether to re-read. */
let cached: { version: string; body: string } | undefined;

async function query(pk: string, range: string, values: Item, projection: string[]) {
  const names = Object.fromEntries(projection.map((name, i) => [`#p${String(i)}`, name]));
  const items: Item[] = [];
  let startKey: Item | undefined;
  do {
    const page = await call<{ Items: Item[]; LastEvaluatedKey?: Item }>("Query", {
      TableName: table,
      KeyConditionExpression: `pk = :pk AND ${range}`,
      ExpressionAttributeValues: { ":pk": { S: pk }, ...values },
      ExpressionAttributeNames: names,
      ProjectionExpression: Object.keys(names).join(", "),
      ConsistentRead: true,
      ...(startKey && { ExclusiveStartKey: startKey }),
    });
    items.push(...page.Items);
    startKey = page.LastEvaluatedKey;
  } while (startKey);
  return items;
}

const sortKey = (id: number): { S: string } => ({ S: String(id).padStart(16, "0") });

export async function listCategories(event: APIGatewayProxyEventV2): Promise<Result> {
  if (!(await authorized(event))) return unauthorized;
  // The counter and the withdrawals of the last two minutes beside it (lib/table/schema.ts).
  const since = String(Date.now() - 120_000).padStart(15, "0");
  const head = await query(
    "COUNTER",
    "sk BETWEEN :skLow AND :skHigh",
    { ":skLow": { S: `cat#withdrawn#${since}` }, ":skHigh": { S: "category" } },
    ["sk", "id", "at", "value", "version", "epoch"],
  );
  const counter = { Item: head.find((item) => item.sk?.S === "category") };
  const withdrawn = head.filter((item) => item !== counter.Item);
  const version = `${counter.Item?.epoch?.S ?? ""}.${counter.Item?.version?.N ?? "0"}`;
  if (cached?.version === version) return { statusCode: 200, headers: json, body: cached.body };
  const last = Number(counter.Item?.value?.N ?? "0");
  const parts = Math.max(1, Math.min(16, Math.floor(last / 1000)));
  const size = Math.ceil(last / parts);
  const ranges = [];
  for (let low = 1; low <= last; low += size) ranges.push([low, Math.min(last, low + size - 1)]);
  const pages = await Promise.all(
    ranges.map(([low = 0, high = 0]) =>
      query(
        "CATEGORY",
        "sk BETWEEN :skLow AND :skHigh",
        { ":skLow": sortKey(low), ":skHigh": sortKey(high) },
        ["id", "name", "description", "createdAt"],
      ),
    ),
  );
  const gone = new Set(withdrawn.map((item) => item.id?.N));
  const categories = pages
    .flat()
    .filter((item) => !gone.has(item.id?.N))
    .map((item) => ({
      id: Number(item.id?.N),
      name: item.name?.S,
      description: item.description?.S,
    }));
  cached = { version, body: JSON.stringify(categories) };
  return { statusCode: 200, headers: json, body: cached.body };
}

export async function createCategory(event: APIGatewayProxyEventV2): Promise<Result> {
  if (!(await authorized(event))) return unauthorized;
  const input = JSON.parse(event.body ?? "") as { name: string; description?: string };
  const counter = await call<{ Attributes: Item }>("UpdateItem", {
    TableName: table,
    Key: { pk: { S: "COUNTER" }, sk: { S: "category" } },
    UpdateExpression: "ADD #v :one, version :one SET epoch = if_not_exists(epoch, :now)",
    ExpressionAttributeNames: { "#v": "value" },
    ExpressionAttributeValues: { ":one": { N: "1" }, ":now": { S: Date.now().toString(36) } },
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
  await call("UpdateItem", {
    TableName: table,
    Key: { pk: { S: "COUNTER" }, sk: { S: "category" } },
    UpdateExpression: "ADD version :one",
    ExpressionAttributeValues: { ":one": { N: "1" } },
  });
  return { statusCode: 201, headers: json, body: JSON.stringify({ id, ...input }) };
}
