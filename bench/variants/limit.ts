/**
 * The limit: handlers.ts bare, over the least client that talks to DynamoDB: aws4 signing on a
 * keep-alive agent, with plain values turned into attribute values and back in the JSON itself.
 * Only ever run against the bench's store, over http.
 */
import http from "node:http";
import aws4 from "aws4";
import type { Event, Input, Item, NewCategory, Result } from "./handlers.ts";
import { comparisonHandlers } from "./handlers.ts";

const { AWS_REGION: region = "", TABLE_NAME = "", DYNAMODB_ENDPOINT = "" } = process.env;
const { AWS_ACCESS_KEY_ID: accessKeyId = "", AWS_SECRET_ACCESS_KEY: secretAccessKey = "" } =
  process.env;
const { host, hostname, port } = new URL(DYNAMODB_ENDPOINT);
const agent = new http.Agent({ keepAlive: true });
const valueMaps = new Set(["Key", "Item", "ExpressionAttributeValues", "ExclusiveStartKey"]);
const wire = (value: unknown) => (typeof value === "number" ? { N: String(value) } : { S: value });
const toWire = (key: string, value: object | undefined): unknown =>
  valueMaps.has(key) && value
    ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, wire(v)]))
    : value;
const fromWire = (_: string, value: { S?: string; N?: string } | undefined): unknown =>
  value?.N !== undefined ? Number(value.N) : (value?.S ?? value);

async function call(operation: string, input: Input): Promise<Record<string, unknown>> {
  const body = JSON.stringify(input, toWire);
  const target = `DynamoDB_20120810.${operation}`;
  const headers = { "content-type": "application/x-amz-json-1.0", "x-amz-target": target };
  const request = { host, path: "/", method: "POST", service: "dynamodb", region, headers, body };
  const signed = aws4.sign(request, { accessKeyId, secretAccessKey }).headers;
  const options = { hostname, port, path: "/", method: "POST", agent, headers: signed };
  const response = await new Promise<http.IncomingMessage>((resolve, reject) => {
    http.request(options, resolve).on("error", reject).end(body);
  });
  const chunks: Buffer[] = [];
  for await (const chunk of response) chunks.push(chunk as Buffer);
  const [status, text] = [response.statusCode, Buffer.concat(chunks).toString()];
  if (status !== 200) throw new Error(`${operation}: HTTP ${String(status)} ${text}`);
  return JSON.parse(text, fromWire) as Record<string, unknown>;
}

async function query(input: Input): Promise<Item[]> {
  const items: Item[] = [];
  for (let start: unknown; ;) {
    const page = await call("Query", { ...input, ExclusiveStartKey: start });
    items.push(...(page.Items as Item[]));
    if (!(start = page.LastEvaluatedKey)) return items;
  }
}

const handlers = comparisonHandlers({ send: call, query }, TABLE_NAME);
export const listCategories = (event: Event): Promise<Result> => handlers.list(event);
export const createCategory = (event: Event): Promise<Result> =>
  handlers.create(event, JSON.parse(event.body ?? "") as NewCategory);
