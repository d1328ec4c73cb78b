/**
 * Bench data: realistic category rows (names and 200-character descriptions made of real words,
 * so they compress like the text a pet store would store, not like random bytes), seeded into a
 * table of the embedded store with BatchWriteItem, and the API Gateway events the variants get.
 */
import type { APIGatewayProxyEventV2 } from "aws-lambda";
import { ApiKeyStore } from "../lib/repositories/apiKeys.ts";
import type { DynamoDb, Item } from "../lib/dynamodb.ts";
import { categorySortKey } from "../lib/table/schema.ts";
import { ensureTable } from "../local/embeddedDynamo.ts";

export const descriptionLength = 200;

/** A fixed key: every bench table holds its hash, so all variants authenticate the same way. */
export const benchApiKey = "petstore_benchbenchbenchbenchbenchbenchbenchbenchben";

const animals = words(
  "dogs,puppies,cats,kittens,rabbits,hamsters,guinea pigs,ferrets,parrots,canaries,budgies,finches,tortoises,turtles,lizards,geckos,snakes,frogs,goldfish,koi,tropical fish,shrimp,chinchillas,rats,mice,horses,ponies,chickens,ducks,hedgehogs",
);
const kinds = words(
  "food,treats,toys,beds,collars,leashes,harnesses,cages,aquariums,filters,grooming,shampoos,brushes,litter,bowls,feeders,crates,carriers,clothing,vitamins,dental care,flea control,bedding,heat lamps,scratching posts,training aids,tanks,perches,hay,supplements",
);
const qualities = words(
  "organic,grain-free,premium,everyday,senior,junior,travel,outdoor,indoor,eco,hypoallergenic,heavy-duty,natural,veterinary,budget,luxury",
);
const vocabulary = (
  "a an the and or with for from our your their every each all most many some only also " +
  "selected chosen tested loved trusted gentle durable soft warm safe easy quick daily weekly " +
  "fresh dried frozen healthy balanced complete small medium large giant young adult older " +
  "active calm curious playful nervous picky owners breeders keepers families shelters vets " +
  "range brands sizes colours flavours recipes formulas materials designs models shapes " +
  "keeps helps supports cleans protects comforts entertains feeds rewards trains calms " +
  "coat skin teeth joints digestion weight energy sleep play exercise travel home garden " +
  "made in small batches by local suppliers free of artificial colours and preservatives " +
  "delivered next day returned within thirty days recommended by our staff favourite of " +
  "customers since long lasting machine washable dishwasher safe recyclable packaging"
).split(" ");

function words(list: string): readonly string[] {
  return list.split(",");
}

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

function pick<T>(random: () => number, list: readonly T[]): T {
  const value = list[Math.floor(random() * list.length)];
  if (value === undefined) throw new Error("pick from an empty list");
  return value;
}

function capitalised(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

export interface BenchCategory {
  readonly id: number;
  readonly name: string;
  readonly description: string;
}

/** Category `id` of a table seeded with `seed`: a name of 2-4 words and a 200-character description. */
export function makeCategory(id: number, random: () => number): BenchCategory {
  const animal = pick(random, animals);
  const kind = pick(random, kinds);
  const name = capitalised(
    random() < 0.5 ? `${pick(random, qualities)} ${kind} for ${animal}` : `${animal} ${kind}`,
  );
  let description = `${capitalised(pick(random, qualities))} ${kind} for ${animal}:`;
  while (description.length < descriptionLength) {
    description += ` ${pick(random, vocabulary)}`;
    if (random() < 0.08) description += ".";
  }
  description = `${description.slice(0, descriptionLength - 1).trimEnd()}.`.padEnd(
    descriptionLength,
    ".",
  );
  return { id, name, description };
}

function toItem(category: BenchCategory, createdAt: string): Item {
  return {
    pk: { S: "CATEGORY" },
    sk: { S: categorySortKey(category.id) },
    id: { N: String(category.id) },
    name: { S: category.name },
    description: { S: category.description },
    createdAt: { S: createdAt },
    requestId: { S: `seed-${category.id}` },
  };
}

interface BatchOutput {
  readonly UnprocessedItems?: Readonly<Record<string, readonly { PutRequest: { Item: Item } }[]>>;
}

/**
 * A fresh table with the bench API key and `count` categories (ids 1..count), written 25 at a
 * time (BatchWriteItem's limit) with a few batches in flight. The counter is set to `count`.
 */
export async function seedTable(db: DynamoDb, table: string, count: number): Promise<void> {
  await ensureTable(db, table);
  const deadline = Date.now() + 600_000;
  await new ApiKeyStore(db, table).issue("bench", undefined, deadline, benchApiKey);
  await db.call(
    "PutItem",
    {
      TableName: table,
      Item: { pk: { S: "COUNTER" }, sk: { S: "category" }, value: { N: String(count) } },
    },
    deadline,
  );
  const random = randomSource(count);
  const createdAt = new Date(0).toISOString();
  let next = 1;
  const writer = async (): Promise<void> => {
    while (next <= count) {
      const first = next;
      const last = Math.min(count, first + 24);
      next = last + 1;
      let requests = [];
      for (let id = first; id <= last; id++) {
        requests.push({ PutRequest: { Item: toItem(makeCategory(id, random), createdAt) } });
      }
      while (requests.length > 0) {
        const output: BatchOutput = await db.call(
          "BatchWriteItem",
          { RequestItems: { [table]: requests } },
          deadline,
        );
        requests = [...(output.UnprocessedItems?.[table] ?? [])];
      }
    }
  };
  await Promise.all([writer(), writer(), writer(), writer()]);
}

export interface EventOptions {
  readonly method: "GET" | "POST";
  readonly body?: string;
  readonly acceptEncoding?: string;
}

/** An API Gateway HTTP API (payload 2.0) event for /v1/categories, as the bench sends it. */
export function categoriesEvent(options: EventOptions): APIGatewayProxyEventV2 {
  const headers: Record<string, string> = {
    authorization: `Bearer ${benchApiKey}`,
    host: "bench.local",
    "user-agent": "bench",
    ...(options.body !== undefined && { "content-type": "application/json" }),
    ...(options.acceptEncoding !== undefined && { "accept-encoding": options.acceptEncoding }),
  };
  const routeKey = `${options.method} /v1/categories`;
  return {
    version: "2.0",
    routeKey,
    rawPath: "/v1/categories",
    rawQueryString: "",
    headers,
    requestContext: {
      accountId: "bench",
      apiId: "bench",
      domainName: "bench.local",
      domainPrefix: "bench",
      http: {
        method: options.method,
        path: "/v1/categories",
        protocol: "HTTP/1.1",
        sourceIp: "127.0.0.1",
        userAgent: "bench",
      },
      requestId: "bench-request",
      routeKey,
      stage: "$default",
      time: new Date(0).toUTCString(),
      timeEpoch: 0,
    },
    ...(options.body !== undefined && { body: options.body }),
    isBase64Encoded: false,
  };
}
