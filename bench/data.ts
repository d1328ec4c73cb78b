/**
 * Bench data: tables of categories with 200-character descriptions made of real words (so they
 * compress like a pet store's text, not like random bytes), the bench's API key, and the API
 * Gateway events the functions get.
 */
import type { APIGatewayProxyEventV2 } from "aws-lambda";
import { ApiKeyStore } from "../lib/repositories/apiKeys.ts";
import type { DynamoDb } from "../lib/dynamodb.ts";
import { categorySortKey } from "../lib/table/schema.ts";
import { ensureTable } from "../local/embeddedDynamo.ts";

/** A fixed key: every bench table holds its hash, so every variant authenticates the same way. */
const benchApiKey = "petstore_benchbenchbenchbenchbenchbenchbenchbenchben";

const words = (
  "dogs cats rabbits hamsters parrots goldfish tortoises ferrets food treats toys beds collars " +
  "leashes cages filters brushes bowls crates organic premium senior junior travel outdoor " +
  "natural durable soft warm safe gentle daily fresh healthy small large young adult active " +
  "calm playful owners breeders families vets range brands sizes colours flavours keeps helps " +
  "supports cleans protects comforts feeds trains coat skin teeth joints sleep play home made " +
  "in batches by local suppliers free of artificial preservatives delivered next day returned " +
  "within thirty days recommended by our staff machine washable recyclable packaging"
).split(" ");

/** Deterministic, so every run and every variant sees the same rows (mulberry32). */
export function randomSource(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function text(random: () => number, length: number): string {
  let out = "";
  while (out.length < length) out += `${words[Math.floor(random() * words.length)] ?? ""} `;
  return out.slice(0, length);
}

/** A fresh table with the bench key, `count` categories (ids 1..count) and the counter at count. */
export async function seedTable(db: DynamoDb, table: string, count: number): Promise<void> {
  await ensureTable(db, table);
  const deadline = Date.now() + 600_000;
  await new ApiKeyStore(db, table).issue("bench", undefined, deadline, benchApiKey);
  const counter = { pk: { S: "COUNTER" }, sk: { S: "category" }, value: { N: String(count) } };
  await db.call("PutItem", { TableName: table, Item: counter }, deadline);
  const random = randomSource(count);
  const item = (id: number) => ({
    PutRequest: {
      Item: {
        ...{ pk: { S: "CATEGORY" }, sk: { S: categorySortKey(id) }, id: { N: String(id) } },
        ...{ name: { S: text(random, 24).trim() }, description: { S: text(random, 200) } },
        ...{ createdAt: { S: new Date(0).toISOString() }, requestId: { S: `seed-${id}` } },
      },
    },
  });
  let next = 1;
  // Four writers of 25 items (BatchWriteItem's limit) at a time, retrying what the store leaves.
  const writer = async (): Promise<void> => {
    while (next <= count) {
      const first = next;
      next = Math.min(count, first + 24) + 1;
      let requests: unknown[] = Array.from({ length: next - first }, (_, i) => item(first + i));
      while (requests.length > 0) {
        const output: { UnprocessedItems?: Record<string, unknown[]> } = await db.call(
          "BatchWriteItem",
          { RequestItems: { [table]: requests } },
          deadline,
        );
        requests = output.UnprocessedItems?.[table] ?? [];
      }
    }
  };
  await Promise.all([writer(), writer(), writer(), writer()]);
}

/** An API Gateway HTTP API (payload 2.0) event for /v1/categories. */
export function categoriesEvent(
  method: "GET" | "POST",
  body?: string,
  acceptEncoding?: string,
): APIGatewayProxyEventV2 {
  const routeKey = `${method} /v1/categories`;
  const http = { method, path: "/v1/categories", protocol: "HTTP/1.1", sourceIp: "127.0.0.1" };
  return {
    version: "2.0",
    routeKey,
    rawPath: "/v1/categories",
    rawQueryString: "",
    headers: {
      authorization: `Bearer ${benchApiKey}`,
      host: "bench.local",
      ...(body !== undefined && { "content-type": "application/json" }),
      ...(acceptEncoding !== undefined && { "accept-encoding": acceptEncoding }),
    },
    requestContext: {
      ...{ accountId: "bench", apiId: "bench", domainName: "bench.local", domainPrefix: "bench" },
      http: { ...http, userAgent: "bench" },
      ...{ requestId: "bench-request", routeKey, stage: "$default" },
      ...{ time: new Date(0).toUTCString(), timeEpoch: 0 },
    },
    ...(body !== undefined && { body }),
    isBase64Encoded: false,
  };
}
