/**
 * Read units per list: today's design (one strongly consistent Query over the whole CATEGORY
 * partition, paged) against the list cache (lib/categoryList/, docs/list-cache.md), in steady
 * state, after one create, under a minute after it (recent withdrawals are read too) and cold;
 * the lists per second one partition's 3,000 read units allow; the store calls and sequential
 * round trips of a cold list, and its time with 10 ms added to every store call (noisy on a
 * shared machine). Units are the store's own, through proxy.ts.
 *
 *   node bench/listCost.ts [sizes…]   (the table; `npm run bench` records it in results.json)
 */
import { CategoryList } from "../lib/categoryList/reader.ts";
import { DynamoDb } from "../lib/dynamodb.ts";
import { CategoryStore } from "../lib/repositories/categories.ts";
import { localClient, startEmbeddedDynamo } from "../local/embeddedDynamo.ts";
import { seedTable } from "./data.ts";
import { startStoreTally } from "./proxy.ts";

type Scenario = "today" | "steady" | "afterCreate" | "settling" | "cold";
type Cold = "todayCalls" | "coldCalls" | "todayRounds" | "coldRounds" | "todayColdMs" | "coldMs";
export type ListCostRow = Readonly<
  Record<Scenario | Cold | "categories" | "todayListsPerSecond" | "steadyListsPerSecond", number>
>;

const partitionReadUnits = 3000;
const deadline = (): number => Date.now() + 120_000;

export async function listCost(sizes: readonly number[]): Promise<ListCostRow[]> {
  const dynamo = await startEmbeddedDynamo();
  const proxy = await startStoreTally(dynamo.endpoint);
  const direct = localClient(dynamo.endpoint);
  // Attempts are never abandoned on a busy machine, so no retried page counts twice.
  const credentials = () => Promise.resolve({ accessKeyId: "local", secretAccessKey: "local" });
  const options = { region: "local", endpoint: proxy.endpoint, attemptTimeoutMs: 60_000 };
  const db = new DynamoDb({ ...options, credentials });
  const { measure } = proxy;
  const rows: ListCostRow[] = [];
  try {
    for (const categories of sizes) {
      const table = `list-cost-${String(categories)}`;
      // Descriptions of 65 characters (names are 24): categories of ~230 bytes, as in the docs.
      await seedTable(direct, table, categories, 65);
      const store = new CategoryStore(db, table);
      const fresh = () => new CategoryList(db, table, Date.now);
      const list = (cache: CategoryList) => async () =>
        cache.categories(await cache.version(deadline()), deadline());
      const today = await measure(() => store.list(deadline()));
      const cache = fresh();
      const cold = await measure(list(cache));
      const steady = await measure(list(cache));
      await store.create({ name: "one more" }, "bench", deadline());
      const afterCreate = await measure(list(cache));
      const settling = await measure(list(cache));
      proxy.delayMs = 10;
      const todaySlow = await measure(() => store.list(deadline()));
      const coldSlow = await measure(list(fresh()));
      proxy.delayMs = 0;
      rows.push({
        ...{ categories, today: today.readUnits, steady: steady.readUnits, cold: cold.readUnits },
        ...{ afterCreate: afterCreate.readUnits, settling: settling.readUnits },
        todayListsPerSecond: Math.floor(partitionReadUnits / today.readUnits),
        steadyListsPerSecond: Math.floor(partitionReadUnits / steady.readUnits),
        ...{ todayCalls: today.calls.length, coldCalls: cold.calls.length },
        ...{ todayRounds: todaySlow.rounds, coldRounds: coldSlow.rounds },
        ...{ todayColdMs: todaySlow.ms, coldMs: coldSlow.ms },
      });
    }
  } finally {
    db.close();
    direct.close();
    proxy.close();
    await dynamo.close();
  }
  return rows;
}

if (import.meta.main) {
  const sizes = process.argv.slice(2).map(Number);
  if (sizes.some((size) => !Number.isSafeInteger(size) || size < 1)) {
    console.error("usage: node bench/listCost.ts [category counts…], e.g. 100 10000 50000");
    process.exit(2);
  }
  console.table(await listCost(sizes.length > 0 ? sizes : [100, 10_000, 50_000]));
}
