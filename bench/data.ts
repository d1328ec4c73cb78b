/**
 * Bench data: tables of categories whose descriptions are made of real words (so they compress
 * like a pet store's text, not like random bytes), the bench's API key, and the functions' event.
 */
import { IncomingMessage } from "node:http";
import { Socket } from "node:net";
import type { APIGatewayProxyEventV2 as Event } from "aws-lambda";
import type { DynamoDb } from "../lib/dynamodb.ts";
import { ApiKeyStore } from "../lib/repositories/apiKeys.ts";
import { categorySortKey } from "../lib/table/schema.ts";
import { parseTarget, toEvent } from "../local/apiGateway.ts";
import { ensureTable } from "../local/embeddedDynamo.ts";

/** A fixed key: every bench table holds its hash, so every variant authenticates the same way. */
const benchApiKey = "petstore_benchbenchbenchbenchbenchbenchbenchbenchben";
const words = (
  "dogs cats rabbits hamsters parrots goldfish tortoises ferrets food treats toys beds collars " +
  "leashes cages brushes bowls crates organic premium senior junior travel outdoor natural soft " +
  "warm safe gentle daily fresh healthy small large young adult calm playful owners breeders vets " +
  "supports cleans protects feeds trains coat skin teeth joints sleep play made in batches by " +
  "local suppliers free of artificial preservatives delivered next day recommended by our staff"
).split(" ");

/** Deterministic, so every run and every variant sees the same rows (mulberry32). */
export function randomSource(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = Math.imul(state ^ (state >>> 15), state | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A table with the bench key, categories 1..count (stored in 1970: settled) and their counter. */
export async function seedTable(
  db: DynamoDb,
  table: string,
  n: number,
  chars = 200,
): Promise<void> {
  await ensureTable(db, table);
  const deadline = Date.now() + 600_000;
  await new ApiKeyStore(db, table).issue("bench", undefined, deadline, benchApiKey);
  const [count, random] = [{ N: String(n) }, randomSource(n)];
  const counter = { value: count, version: count, epoch: { S: "seed" } };
  const Item = { pk: { S: "COUNTER" }, sk: { S: "category" }, ...counter };
  await db.call("PutItem", { TableName: table, Item }, deadline);
  const text = (length: number): string => {
    let out = "";
    while (out.length < length) out += `${words[Math.floor(random() * words.length)] ?? ""} `;
    return out.slice(0, length);
  };
  const put = (id: number) => ({
    ...{ pk: { S: "CATEGORY" }, sk: { S: categorySortKey(id) }, id: { N: String(id) } },
    ...{ name: { S: text(24).trim() }, description: { S: text(chars) } },
    ...{ createdAt: { S: new Date(0).toISOString() }, requestId: { S: `seed-${String(id)}` } },
  });
  // Eight writers of 25 items (BatchWriteItem's limit) at a time, retrying what the store leaves.
  let next = 1;
  const writer = async (): Promise<void> => {
    for (let first = next; first <= n; first = next) {
      next = Math.min(n, first + 24) + 1;
      const batch = Array.from({ length: next - first }, (_, i) => put(first + i));
      let writes: unknown[] = batch.map((Item) => ({ PutRequest: { Item } }));
      while (writes.length > 0) {
        const input = { RequestItems: { [table]: writes } };
        type Output = { UnprocessedItems?: Record<string, unknown[]> };
        const output = await db.call<Output>("BatchWriteItem", input, deadline);
        writes = output.UnprocessedItems?.[table] ?? [];
      }
    }
  };
  await Promise.all(Array.from({ length: 8 }, writer));
}

/** The API Gateway HTTP API event for /v1/categories, as the local server builds it. */
export function categoriesEvent(method: string, body: string, encoding: string): Event {
  const headers = { authorization: `Bearer ${benchApiKey}`, host: "bench.local" };
  if (body) Object.assign(headers, { "content-type": "application/json" });
  if (encoding) Object.assign(headers, { "accept-encoding": encoding });
  const fields = { method, rawHeaders: Object.entries(headers).flat(), httpVersion: "1.1" };
  const request = Object.assign(new IncomingMessage(new Socket()), fields);
  const route = { routeKey: `${method} /v1/categories`, pattern: "/v1/categories" };
  return toEvent(request, Buffer.from(body), parseTarget("/v1/categories"), route);
}
