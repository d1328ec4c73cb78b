/**
 * The category repository (lib/repositories/categories.ts) against the embedded store, read back
 * from the table afterwards: what the counter hands out, what a conditional put stores, what it
 * recognises as its own, how the list version moves, and what a failed create withdraws. Faults
 * come from the fault proxy (test/support/faultProxy.ts); the reliability suites hold the same
 * rules end to end, in bundles this process never runs.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { DynamoDb, Item } from "../../../lib/dynamodb.ts";
import { StoreUnavailableError } from "../../../lib/errors.ts";
import { CategoryStore } from "../../../lib/repositories/categories.ts";
import { DynamoDbError, isConditionFailure } from "../../../lib/table/errors.ts";
import { num, text } from "../../../lib/table/item.ts";
import { keys, partitions, withdrawalRecordMs } from "../../../lib/table/schema.ts";
import { Table } from "../../../lib/table/table.ts";
import type { FaultProxy } from "../../support/faultProxy.ts";
import type { RecordingProxy } from "../../support/recordingDynamoProxy.ts";
import { startRecordingProxy } from "../../support/recordingDynamoProxy.ts";
import { localClient } from "../../../local/embeddedDynamo.ts";
import { startStoreProxy } from "../../../local/storeProxy.ts";
import { soon, useFaultyStore } from "../../support/dynamo.ts";
import { scaled, slowingClock } from "../../support/speed.ts";
import { failureOf } from "../helpers.ts";

/** The repository's and its client's clock: a failed create's withdrawal counts its time on it. */
const clock = slowingClock();
const store = useFaultyStore({ now: clock.now });
const proxy = (): FaultProxy => store.proxy;

afterEach(() => {
  proxy().clear();
  clock.reset();
});

interface Fixture {
  /** The repository, talking to the store through the fault proxy. */
  readonly categories: CategoryStore;
  /** The same table, read and written directly (never faulted). */
  readonly table: Table;
}

async function fixture(): Promise<Fixture> {
  const name = await store.newTable();
  return {
    categories: new CategoryStore(store.client, name, clock.now),
    table: new Table(store.db, name),
  };
}

/** The counter's list version (lib/categoryList/cache.ts): 0 before anything bumped it. */
async function listVersion(table: Table): Promise<number> {
  const counter = await table.get(keys.counter("category"), soon());
  return (counter && num(counter, "version")) ?? 0;
}

/** The withdrawal records beside the counter (lib/table/schema.ts). */
async function withdrawals(table: Table): Promise<Item[]> {
  const items = await table.queryAll({ partition: partitions.counter, consistent: true }, soon());
  return items.filter((item) => text(item, "sk") !== keys.counter("category").sk);
}

/**
 * A put whose first attempt lands with its answer lost, and whose retry (finding the id taken)
 * is not answered before the deadline: the repository cannot learn that its write landed. The
 * deadline it returns is 400 ms away; past it the clock runs slower by the machine's measured
 * slowness, so the withdrawal's shares of time (80, 150, 200 ms) last as long as on a quiet one.
 */

function loseThePutsOutcome(): number {
  const deadline = Date.now() + 400;
  clock.slowFrom(deadline);
  proxy().inject({ fault: "lost_response", operation: "PutItem", times: 1 });
  proxy().inject({ fault: "slow", operation: "PutItem", times: 1, delayMs: 2_000 });
  return deadline;
}

describe("the counter hands out ids within JavaScript's safe-integer range, from 1", () => {
  it("assigns consecutive ids in creation order and returns the stored category", async () => {
    const { categories } = await fixture();
    expect(await categories.create({ name: "dog" }, "r1", soon())).toEqual({ id: 1, name: "dog" });
    const cat = { name: "cat", description: "Felines" };
    expect(await categories.create(cat, "r2", soon())).toEqual({ id: 2, ...cat });
  });

  it("a counter update whose answer was lost skips an id, never repeats one", async () => {
    const { categories } = await fixture();
    await categories.create({ name: "a" }, "r1", soon());
    proxy().inject({ fault: "lost_response", operation: "UpdateItem", times: 1 });
    expect((await categories.create({ name: "b" }, "r2", soon())).id).toBe(3);
    expect((await categories.list(soon())).map((c) => c.id)).toEqual([1, 3]);
  });

  it("hands out the largest safe integer itself", async () => {
    const { categories, table } = await fixture();
    await table.put(keys.counter("category"), { value: Number.MAX_SAFE_INTEGER - 1 }, soon());
    expect(await categories.nextId(soon())).toBe(Number.MAX_SAFE_INTEGER);
  });

  it.each([
    ["past the safe-integer range, naming it", Number.MAX_SAFE_INTEGER, String(2 ** 53)],
    ["0 (a counter below zero)", -1, "(0)"],
  ])("refuses an id %s, and stores no category", async (_, counter, named) => {
    const { categories, table } = await fixture();
    await table.put(keys.counter("category"), { value: counter }, soon());
    await expect(categories.create({ name: "dog" }, "r1", soon())).rejects.toThrow(named);
    expect(await categories.list(soon())).toEqual([]);
  });
});

describe("a put under an id holding another request's category fails and leaves it as it was", () => {
  it("answers the failed condition, keeps the first category, and bumps no version", async () => {
    const { categories, table } = await fixture();
    const first = await categories.create({ name: "dog" }, "r1", soon());
    const version = await listVersion(table);
    const failure = await failureOf(categories.put(first.id, { name: "cat" }, "r2", soon()));
    expect(isConditionFailure(failure)).toBe(true);
    const stored = await table.get(keys.resource("category", first.id), soon());
    expect(stored && text(stored, "requestId")).toBe("r1");
    expect(await categories.get(first.id, soon())).toEqual(first);
    // Its withdrawal is recorded (step 1 comes first), but deletes nothing: no version bump.
    expect((await withdrawals(table)).map((item) => num(item, "id"))).toEqual([first.id]);
    expect(await listVersion(table)).toBe(version);
  });
});

describe("a put under a taken id fails even when the category it met is gone by the check read", () => {
  it("answers the failed condition when the first request withdrew its category meanwhile", async () => {
    const name = await store.newTable();
    const table = new Table(store.db, name);
    const owner = new CategoryStore(store.db, name);
    const id = await owner.nextId(soon());
    await owner.put(id, { name: "dog" }, "r1", soon());
    // The category is deleted (the first request's withdrawal) just before a check read of it
    // (dynalite reads after the failed condition; DynamoDB answers the item with the failure).
    let checkReads = 0;
    const between = await startStoreProxy(store.endpoint, async ({ operation }, forward) => {
      if (operation === "GetItem") {
        checkReads++;
        await table.delete(keys.resource("category", id), soon());
      }
      return forward();
    });
    const client = localClient(between.endpoint);
    try {
      const failure = await failureOf(
        new CategoryStore(client, name).put(id, { name: "cat" }, "r2", soon()),
      );
      expect(isConditionFailure(failure)).toBe(true);
      // Only dynalite needs the check read (DynamoDB and DynamoDB Local answer ALL_OLD).
      expect(await owner.get(id, soon())).toEqual(checkReads > 0 ? undefined : { id, name: "dog" });
    } finally {
      client.close();
      await between.close();
    }
  });
});

describe("a retried put is recognised as its own by the request id: no conflict", () => {
  it("a put whose answer was lost is recognised on retry, stored once", async () => {
    const { categories } = await fixture();
    proxy().inject({ fault: "lost_response", operation: "PutItem", times: 1 });
    expect(await categories.create({ name: "dog" }, "req-1", soon())).toEqual({
      id: 1,
      name: "dog",
    });
    expect(await categories.list(soon())).toEqual([{ id: 1, name: "dog" }]);
  });

  it("a second put of the same request under its id answers the category, stored once", async () => {
    const { categories } = await fixture();
    const id = await categories.nextId(soon());
    await categories.put(id, { name: "dog" }, "r1", soon());
    expect(await categories.put(id, { name: "dog" }, "r1", soon())).toEqual({ id, name: "dog" });
    expect(await categories.list(soon())).toEqual([{ id, name: "dog" }]);
  });
});

describe("concurrent creates never share an id and never lose a category", () => {
  it("stores 100 parallel creates under 100 distinct ids, all listed", async () => {
    const { categories } = await fixture();
    const created = await Promise.all(
      Array.from({ length: 100 }, (_, i) =>
        categories.create({ name: `c${i}` }, `r${i}`, soon(30_000)),
      ),
    );
    const ids = created.map((c) => c.id);
    expect(new Set(ids).size).toBe(100);
    // A counter update retried after a slow attempt burns an id (a gap, never a repeat), so
    // the rule is: the listed ids are exactly the created ones, in id order.
    const listed = await categories.list(soon());
    expect(listed.map((c) => c.id)).toEqual([...ids].sort((a, b) => a - b));
  });
});

describe("list reads every page, in id order", () => {
  it("lists a table holding well over 1 MB of categories whole", async () => {
    const { categories } = await fixture();
    const description = "d".repeat(1000);
    const count = 1600; // ~1.7 MB of items: DynamoDB pages Query results at 1 MB
    const created: number[] = [];
    for (let start = 0; start < count; start += 100) {
      const batch = await Promise.all(
        Array.from({ length: 100 }, (_, i) =>
          categories.create({ name: `n${start + i}`, description }, "r", soon(30_000)),
        ),
      );
      created.push(...batch.map((c) => c.id));
    }
    const queries = proxy().seen.get("Query") ?? 0;
    const listed = await categories.list(soon(30_000));
    expect(listed).toHaveLength(count);
    expect(listed.map((c) => c.id)).toEqual(created.sort((a, b) => a - b));
    expect((proxy().seen.get("Query") ?? 0) - queries).toBeGreaterThan(1);
  });
});

describe("only a failed condition tells that an earlier attempt landed: any other refusal fails the put", () => {
  it("a put the store refuses (an item over 400 KB) fails, even where the request's own write stands", async () => {
    const { categories } = await fixture();
    const id = await categories.nextId(soon());
    await categories.put(id, { name: "dog" }, "r1", soon());
    const huge = { name: "dog", description: "d".repeat(410 * 1024) };
    const failure = await failureOf(categories.put(id, huge, "r1", soon()));
    expect(failure).toBeInstanceOf(DynamoDbError);
    expect(isConditionFailure(failure)).toBe(false);
  });
});

describe("a failed create withdraws its own write, which may have landed", () => {
  it("a put that keeps failing stores nothing and surfaces the failure", async () => {
    const { categories } = await fixture();
    proxy().inject({
      fault: "server_error",
      operation: "PutItem",
      times: Number.POSITIVE_INFINITY,
    });
    await expect(categories.create({ name: "dog" }, "r", Date.now() + 300)).rejects.toThrow();
    // The fault stays for the checks: a put the deadline cut short may reach the proxy only now.
    expect(await categories.list(soon())).toEqual([]);
  });

  it("records the withdrawal beside the counter, deletes the category, then bumps the list version", async () => {
    const { categories, table } = await fixture();
    const before = Date.now();
    const deadline = loseThePutsOutcome();
    await expect(categories.create({ name: "dog" }, "r1", deadline)).rejects.toThrow(
      StoreUnavailableError,
    );
    const after = Date.now();
    proxy().clear();
    // The put landed (the fault proxy forwarded it), and was taken back.
    expect(await table.get(keys.resource("category", 1), soon())).toBeUndefined();
    expect(await categories.list(soon())).toEqual([]);
    const [record, ...more] = await withdrawals(table);
    expect(more).toEqual([]);
    const at = record && num(record, "at");
    expect(record && num(record, "id")).toBe(1);
    expect(at).toBeGreaterThanOrEqual(before);
    expect(at).toBeLessThanOrEqual(after);
    // Kept for a day (DynamoDB TTL, epoch seconds), long enough for every list cache to read it.
    expect(record && num(record, "ttl")).toBe(Math.floor(((at ?? 0) + withdrawalRecordMs) / 1000));
    // The id taken bumped the version once; the delete bumped it again so every cache refreshes.
    expect(await listVersion(table)).toBe(2);
  });

  it("a withdrawal whose delete cannot be made bumps no version, and the caller hears the put's failure", async () => {
    const { categories, table } = await fixture();
    const deadline = loseThePutsOutcome();
    proxy().inject({
      fault: "server_error",
      operation: "DeleteItem",
      times: Number.POSITIVE_INFINITY,
    });
    await expect(categories.create({ name: "dog" }, "r1", deadline)).rejects.toThrow(
      "DynamoDB PutItem",
    );
    // The record still tells every list cache to drop the id.
    expect((await withdrawals(table)).map((item) => num(item, "id"))).toEqual([1]);
    expect(await listVersion(table)).toBe(1);
  });
});

describe("every put moves the list version past any tag sent while it was in flight", () => {
  it("a put under an id taken earlier bumps the version once more", async () => {
    const { categories, table } = await fixture();
    const id = await categories.nextId(soon());
    expect(await listVersion(table)).toBe(1);
    await categories.put(id, { name: "dog" }, "r1", soon());
    expect(await listVersion(table)).toBe(2);
  });

  it("a bump that fails fails nothing: the put answers its category, stored", async () => {
    const { categories, table } = await fixture();
    const id = await categories.nextId(soon());
    proxy().inject({
      fault: "server_error",
      operation: "UpdateItem",
      times: Number.POSITIVE_INFINITY,
    });
    // The put needs one answer before the deadline; the bump retries until then.
    expect(await categories.put(id, { name: "dog" }, "r1", Date.now() + scaled(300))).toEqual({
      id,
      name: "dog",
    });
    // The fault stays for the checks: a bump the deadline cut short may reach the proxy only now.
    expect(await categories.get(id, soon())).toEqual({ id, name: "dog" });
    expect(await listVersion(table)).toBe(1);
  });
});

describe("a list sees every category whose create was answered: its reads are strongly consistent", () => {
  let recorder: RecordingProxy | undefined;
  let client: DynamoDb | undefined;
  beforeAll(async () => {
    recorder = await startRecordingProxy(store.endpoint);
    client = localClient(recorder.endpoint);
  });
  afterAll(async () => {
    client?.close();
    await recorder?.close();
  });

  it("asks every Query of a list for a consistent read", async () => {
    if (!recorder || !client) throw new Error("the recording proxy is not started");
    const categories = new CategoryStore(client, await store.newTable());
    await categories.create({ name: "dog" }, "r1", soon());
    recorder.calls.length = 0;
    expect(await categories.list(soon())).toEqual([{ id: 1, name: "dog" }]);
    const queries = recorder.calls.filter((call) => call.operation === "Query");
    expect(queries.length).toBeGreaterThan(0);
    for (const query of queries) expect(query.input).toMatchObject({ ConsistentRead: true });
  });
});
