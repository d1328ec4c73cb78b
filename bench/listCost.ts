/**
 * Read units per list: today's design (one strongly consistent Query over the whole CATEGORY
 * partition, paged) against the list cache (lib/categoryList/), at 100, 10,000 and 50,000
 * categories, in steady state, after one create, and cold; the lists per second one partition's
 * 3,000 read units allow; and cold-list latency with 10 ms added to every store call.
 *
 * Read units come from the store itself: a proxy adds `ReturnConsumedCapacity: TOTAL` to every
 * call and sums the answers' ConsumedCapacity (dynalite computes it as DynamoDB documents: a
 * Query page is 1 unit per 4 KB of its items' total size, rounded up; GetItem and BatchGetItem
 * 1 unit per item per 4 KB, rounded up; consistent reads at full price).
 *
 *   node bench/listCost.ts [sizes…]   (prints the table; `listCost()` returns it for bench/results.json)
 */
import { createServer, request } from "node:http";
import type { AddressInfo } from "node:net";
import { CategoryList } from "../lib/categoryList/reader.ts";
import { DynamoDb } from "../lib/dynamodb.ts";
import { CategoryStore } from "../lib/repositories/categories.ts";
import { CategoryReader } from "../lib/repositories/categoryReads.ts";
import { keys } from "../lib/table/schema.ts";
import { toItem, keyItem } from "../lib/table/item.ts";
import { ensureTable, localClient, startEmbeddedDynamo } from "../local/embeddedDynamo.ts";

export interface ListCostRow {
  readonly categories: number;
  readonly today: number;
  readonly steady: number;
  readonly afterCreate: number;
  /** A list with nothing new, under a minute after a create (it also reads recent withdrawals). */
  readonly settling: number;
  readonly cold: number;
  readonly todayListsPerSecond: number;
  readonly steadyListsPerSecond: number;
  /** Store calls a cold list makes, and how many round trips one after another. */
  readonly todayCalls: number;
  readonly coldCalls: number;
  readonly todayRounds: number;
  readonly coldRounds: number;
  /** Cold-list time with 10 ms added to every store call (noisy on a shared machine). */
  readonly todayColdMs: number;
  readonly coldMs: number;
}

const partitionReadUnits = 3000;
const addedLatencyMs = 10;
const description = "A category as the service stores it, with a description of typical length.";

/** A proxy to the store that asks for, and sums, consumed capacity; optionally adds latency. */
async function capacityProxy(target: string) {
  const url = new URL(target);
  const meter = { units: 0, calls: 0, rounds: 0, inFlight: 0, delayMs: 0 };
  const server = createServer((incoming, answer) => {
    const chunks: Buffer[] = [];
    incoming.on("data", (chunk: Buffer) => chunks.push(chunk));
    incoming.on("end", () => {
      meter.calls += 1;
      // A call starting while none is in flight starts a new sequential round trip.
      if (meter.inFlight++ === 0) meter.rounds += 1;
      const input = JSON.parse(Buffer.concat(chunks).toString()) as Record<string, unknown>;
      const body = JSON.stringify({ ...input, ReturnConsumedCapacity: "TOTAL" });
      const headers = { ...incoming.headers, "content-length": String(Buffer.byteLength(body)) };
      const forward = request(
        { host: url.hostname, port: url.port, method: "POST", path: incoming.url, headers },
        (reply) => {
          const parts: Buffer[] = [];
          reply.on("data", (part: Buffer) => parts.push(part));
          reply.on("end", () => {
            const text = Buffer.concat(parts).toString();
            const used = (JSON.parse(text) as { ConsumedCapacity?: unknown }).ConsumedCapacity;
            for (const entry of [used].flat())
              meter.units += (entry as { CapacityUnits?: number } | undefined)?.CapacityUnits ?? 0;
            setTimeout(() => {
              meter.inFlight -= 1;
              answer.writeHead(reply.statusCode ?? 500, reply.headers).end(text);
            }, meter.delayMs);
          });
        },
      );
      forward.end(body);
    });
  });
  await new Promise<void>((done) => server.listen(0, "127.0.0.1", done));
  const endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return { endpoint, meter, close: () => new Promise((done) => server.close(done)) };
}

/** Writes `count` categories and sets the counter as creates would have: 25 items a request. */
async function seed(db: DynamoDb, table: string, count: number): Promise<void> {
  // Stored a day ago: settled creates, as in a store that has been running.
  const createdAt = new Date(Date.now() - 86_400_000).toISOString();
  const batches: Record<string, unknown>[][] = [];
  for (let id = 1; id <= count; id += 25) {
    const ids = Array.from({ length: Math.min(25, count - id + 1) }, (_, i) => id + i);
    batches.push(
      ids.map((i) => ({
        PutRequest: {
          Item: {
            ...keyItem(keys.category(i)),
            ...toItem({
              id: i,
              name: `Category ${i}`,
              description,
              createdAt,
              requestId: `seed-${i}`,
            }),
          },
        },
      })),
    );
  }
  for (let i = 0; i < batches.length; i += 32) {
    await Promise.all(
      batches
        .slice(i, i + 32)
        .map((writes) =>
          db.call("BatchWriteItem", { RequestItems: { [table]: writes } }, Date.now() + 60_000),
        ),
    );
  }
  const counter = toItem({ value: count, version: count, epoch: "seed" });
  await db.call(
    "PutItem",
    { TableName: table, Item: { ...keyItem(keys.categoryCounter), ...counter } },
    Date.now() + 10_000,
  );
}

interface Count {
  units: number;
  calls: number;
  rounds: number;
}

async function measure<T>(meter: Count, run: () => Promise<T>): Promise<Count & { ms: number }> {
  const [units, calls, rounds] = [meter.units, meter.calls, meter.rounds];
  const started = performance.now();
  await run();
  return {
    units: meter.units - units,
    calls: meter.calls - calls,
    rounds: meter.rounds - rounds,
    ms: performance.now() - started,
  };
}

export async function listCost(
  sizes: readonly number[] = [100, 10_000, 50_000],
): Promise<ListCostRow[]> {
  const dynamo = await startEmbeddedDynamo();
  const proxy = await capacityProxy(dynamo.endpoint);
  const direct = localClient(dynamo.endpoint);
  // Attempts are never abandoned on a busy machine, so no retried page counts twice.
  const db = new DynamoDb({
    region: "local",
    endpoint: proxy.endpoint,
    credentials: () => Promise.resolve({ accessKeyId: "local", secretAccessKey: "local" }),
    attemptTimeoutMs: 60_000,
  });
  const rows: ListCostRow[] = [];
  try {
    for (const size of sizes) {
      const table = `bench-${size}`;
      await ensureTable(direct, table);
      await seed(direct, table, size);
      const store = new CategoryStore(db, table);
      const fresh = () => new CategoryList(new CategoryReader(db, table), Date.now);
      const list = async (cache: CategoryList) =>
        cache.categories(await cache.version(deadline()), deadline());
      const today = await measure(proxy.meter, () => store.list(deadline()));
      const cache = fresh();
      const cold = await measure(proxy.meter, () => list(cache));
      const steady = await measure(proxy.meter, () => list(cache));
      await store.create({ name: "one more" }, "bench", deadline());
      const afterCreate = await measure(proxy.meter, () => list(cache));
      const settling = await measure(proxy.meter, () => list(cache));
      proxy.meter.delayMs = addedLatencyMs;
      const todayCold = await measure(proxy.meter, () => store.list(deadline()));
      const coldSlow = await measure(proxy.meter, () => list(fresh()));
      proxy.meter.delayMs = 0;
      rows.push({
        categories: size,
        today: today.units,
        steady: steady.units,
        afterCreate: afterCreate.units,
        settling: settling.units,
        cold: cold.units,
        todayListsPerSecond: Math.floor(partitionReadUnits / today.units),
        steadyListsPerSecond: Math.floor(partitionReadUnits / steady.units),
        todayCalls: today.calls,
        coldCalls: cold.calls,
        todayColdMs: Math.round(todayCold.ms),
        coldMs: Math.round(coldSlow.ms),
        todayRounds: todayCold.rounds,
        coldRounds: coldSlow.rounds,
      });
    }
  } finally {
    db.close();
    direct.close();
    await proxy.close();
    await dynamo.close();
  }
  return rows;
}

const deadline = (): number => Date.now() + 120_000;

export function printListCost(rows: readonly ListCostRow[]): void {
  console.log(
    "read units per list (strongly consistent) and cold-list latency at +10 ms per store call",
  );
  console.table(
    rows.map((row) => ({
      categories: row.categories,
      "today RCU": row.today,
      "steady RCU": row.steady,
      "after 1 create RCU": row.afterCreate,
      "<1 min after RCU": row.settling,
      "cold RCU": row.cold,
      "lists/s today": row.todayListsPerSecond,
      "lists/s steady": row.steadyListsPerSecond,
      "cold calls today/cache": `${row.todayCalls}/${row.coldCalls}`,
      "cold ms +10ms today/cache": `${row.todayColdMs}/${row.coldMs}`,
      "cold round trips today/cache": `${row.todayRounds}/${row.coldRounds}`,
    })),
  );
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const sizes = process.argv.slice(2).map(Number);
  if (sizes.some((size) => !Number.isSafeInteger(size) || size < 1)) {
    console.error("usage: node bench/listCost.ts [category counts…], e.g. 100 10000 50000");
    process.exit(2);
  }
  const rows = await listCost(sizes.length > 0 ? sizes : undefined);
  printListCost(rows);
  console.log(JSON.stringify(rows));
}
