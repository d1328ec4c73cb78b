/**
 * Bench data: tables of categories whose descriptions are made of real words (so they compress
 * like a pet store's text, not like random bytes), and the functions' events: the project's
 * sample events (events/), whose API key every bench table holds, so every variant
 * authenticates the same way.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import type { APIGatewayProxyEventV2 as Event } from "aws-lambda";
import type { DynamoDb } from "../lib/dynamodb.ts";
import { ApiKeyStore } from "../lib/repositories/apiKeys.ts";
import { keyItem, toItem } from "../lib/table/item.ts";
import { keys } from "../lib/table/schema.ts";
import { Table } from "../lib/table/table.ts";
import { ensureTable } from "../local/embeddedDynamo.ts";
import { sampleApiKey } from "../local/functionEnv.ts";
import { projectRoot } from "../local/template.ts";
import { randomSource } from "../scripts/lib/random.ts";

const words = (
  "dogs cats rabbits hamsters parrots goldfish tortoises ferrets food treats toys beds collars " +
  "leashes cages brushes bowls crates organic premium senior junior travel outdoor natural soft " +
  "warm safe gentle daily fresh healthy small large young adult calm playful owners breeders vets " +
  "supports cleans protects feeds trains coat skin teeth joints sleep play made in batches by " +
  "local suppliers free of artificial preservatives delivered next day recommended by our staff"
).split(" ");

/** A table with the sample key, categories 1..n (stored in 1970: settled) and their counter. */
export async function seedTable(
  db: DynamoDb,
  table: string,
  n: number,
  chars = 200,
): Promise<void> {
  await ensureTable(db, table);
  const deadline = Date.now() + 600_000;
  await new ApiKeyStore(db, table).issue("bench", deadline, { apiKey: sampleApiKey });
  const counter = { value: n, version: n, epoch: "seed" };
  await new Table(db, table).put(keys.counter("category"), counter, deadline);
  const random = randomSource(n);
  const text = (length: number): string => {
    let out = "";
    while (out.length < length) out += `${words[Math.floor(random() * words.length)] ?? ""} `;
    return out.slice(0, length);
  };
  const put = (id: number) => ({
    ...keyItem(keys.resource("category", id)),
    ...toItem({ id, name: text(24).trim(), description: text(chars) }),
    ...toItem({ createdAt: new Date(0).toISOString(), requestId: `seed-${String(id)}` }),
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

/** events/list-ok.json (with `encoding` asked for, if any) or events/create-ok.json. */
export function sampleEvent(create: boolean, encoding: string): Event {
  const file = resolve(projectRoot, "events", create ? "create-ok.json" : "list-ok.json");
  const event = JSON.parse(readFileSync(file, "utf8")) as Event;
  if (encoding) event.headers["accept-encoding"] = encoding;
  return event;
}
