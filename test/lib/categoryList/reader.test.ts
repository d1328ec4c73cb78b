/**
 * The list cache's reads (lib/categoryList/reader.ts) against the embedded store: a list's first
 * step (the counter and the withdrawals beside it) and the reads that bring a container's cache up
 * to it. Each container is its own CategoryList with an injected clock.
 */
import { describe, expect, it } from "vitest";
import { emptyCounter, settleMs } from "../../../lib/categoryList/cache.ts";
import { CategoryList } from "../../../lib/categoryList/reader.ts";
import { CategoryStore } from "../../../lib/repositories/categories.ts";
import { num, text } from "../../../lib/table/item.ts";
import { keys } from "../../../lib/table/schema.ts";
import { Table } from "../../../lib/table/table.ts";
import { soon, useEmbeddedDynamo } from "../../support/dynamo.ts";
import { container, listCacheTable } from "../../support/listCache.ts";

const store = useEmbeddedDynamo();
const start = Date.parse("2026-11-22T12:00:00Z");

describe("a list's first step reads the counter: last id, version and epoch", () => {
  it("answers the empty counter on a table no create has written yet", async () => {
    const list = new CategoryList(store.db, await store.newTable(), () => start);
    expect(await list.version(soon())).toEqual({
      counter: emptyCounter,
      withdrawals: [],
      readAt: start,
      since: start - 2 * settleMs,
    });
  });

  it("answers the counter item's value, version and epoch as the creates left them", async () => {
    const table = await store.newTable();
    const writer = new CategoryStore(store.db, table, () => start);
    await writer.create({ name: "a" }, "r-a", soon());
    await writer.create({ name: "b" }, "r-b", soon());
    await writer.commit(soon()); // a version bump without a new id (a repeat, a withdrawal)
    const stored = (await new Table(store.db, table).get(keys.counter("category"), soon())) ?? {};
    const list = new CategoryList(store.db, table, () => start);
    const { counter, withdrawals } = await list.version(soon());
    expect(counter).toEqual({
      epoch: text(stored, "epoch"),
      version: num(stored, "version"),
      lastId: 2,
    });
    expect(counter.epoch).toBe(start.toString(36));
    expect(counter.version).toBe(5);
    expect(withdrawals).toEqual([]);
  });
});

describe("a counter written only by a version bump reads as the empty counter's epoch and id", () => {
  it("answers epoch 0 and last id 0 beside the version when the item has only a version", async () => {
    const table = await store.newTable();
    await new CategoryStore(store.db, table).commit(soon());
    const list = new CategoryList(store.db, table, () => start);
    expect((await list.version(soon())).counter).toEqual({ epoch: "0", version: 1, lastId: 0 });
  });
});

describe("every read a list makes is strongly consistent (it must see every create answered 201)", () => {
  it("sends the counter Query, the range Queries and the hole reads with ConsistentRead", async () => {
    const { table, writer, create } = await listCacheTable(store);
    await create("one");
    const two = await writer.nextId(soon());
    await create("three");
    const sent: { operation: string; consistent: unknown }[] = [];
    const db = store.db;
    const call = (operation: string, input: Record<string, unknown>, deadline: number) => {
      const batch = input.RequestItems as Record<string, { ConsistentRead?: unknown }> | undefined;
      const consistent = batch ? batch[table]?.ConsistentRead : input.ConsistentRead;
      sent.push({ operation, consistent });
      return db.call(operation, input, deadline);
    };
    const recorded = new Proxy(db, {
      get: (target, property): unknown =>
        property === "call" ? call : (Reflect.get(target, property) as unknown),
    });
    const list = new CategoryList(recorded, table, Date.now);
    await list.categories(await list.version(soon()), soon());
    await writer.put(two, { name: "two" }, "r-two", soon());
    await create("four");
    await list.categories(await list.version(soon()), soon());
    expect(sent.map(({ operation }) => operation).sort()).toEqual([
      "BatchGetItem",
      "Query",
      "Query",
      "Query",
      "Query",
    ]);
    expect(sent.every(({ consistent }) => consistent === true)).toBe(true);
  });
});

describe("a list's first step reads the withdrawals recorded since `withdrawalsSince`", () => {
  it("reads withdrawals of the layout before resources were named too, and the counter as the counter", async () => {
    const table = await store.newTable();
    const direct = new Table(store.db, table);
    const at = start - 5;
    // As the previous release recorded it: "cat#withdrawn#", the ms, "#", the id.
    const legacy = `cat#withdrawn#${String(at).padStart(15, "0")}#4`;
    await direct.put({ pk: "COUNTER", sk: legacy }, { id: 4, at }, soon());
    await direct.put(keys.counter("category"), { value: 4, version: 6, epoch: "e" }, soon());
    const version = await new CategoryList(store.db, table, () => start).version(soon());
    expect(version.counter).toEqual({ epoch: "e", version: 6, lastId: 4 });
    expect(version.withdrawals).toEqual([{ id: 4, at }]);
  });

  it("answers each recent withdrawal's id and time, and none recorded before", async () => {
    const table = await store.newTable();
    const direct = new Table(store.db, table);
    const since = start - 2 * settleMs;
    for (const [at, id] of [
      [since - 1, 1],
      [since, 2],
      [start - 5, 3],
    ] as const) {
      await direct.put(keys.withdrawal("category", at, id), { id, at }, soon());
    }
    const list = new CategoryList(store.db, table, () => start);
    const version = await list.version(soon());
    expect(version.since).toBe(since);
    // In any order: each withdrawal drops its own id (lib/categoryList/snapshot.ts).
    expect(version.withdrawals).toHaveLength(2);
    expect(version.withdrawals).toEqual(
      expect.arrayContaining([
        { id: 2, at: since },
        { id: 3, at: start - 5 },
      ]),
    );
    expect(version.counter).toEqual(emptyCounter);
  });
});

describe("a list answers every stored category in id order, read in parallel ranges", () => {
  it("lists what the repository stored, with every listed field, across several range Queries", async () => {
    const { table, writer } = await listCacheTable(store);
    const stored = [];
    for (let i = 1; i <= 7; i++) {
      stored.push(await writer.create({ name: `c${i}`, description: `d${i}` }, `r${i}`, soon()));
    }
    const list = new CategoryList(store.db, table, () => start, { maxParts: 3, minIds: 2 });
    const categories = await list.categories(await list.version(soon()), soon());
    expect(categories).toEqual(stored);
  });

  it("reads only the ids above the cached ones after a create, and a hole by its id", async () => {
    const { table, writer, create } = await listCacheTable(store);
    await create("one");
    const two = await writer.nextId(soon());
    await create("three");
    let clock = Date.now();
    const a = container(store.db, table, () => clock);
    expect(await a.ids()).toEqual([1, 3]);
    await writer.put(two, { name: "two" }, "r-two", soon());
    await create("four");
    clock += settleMs + 1;
    expect(await a.ids()).toEqual([1, 2, 3, 4]);
    expect(a.reads.sort()).toEqual(["counter", "ids 2", "range 4-4"]);
  });
});

describe("concurrent lists finishing out of order keep the newest state (the local server)", () => {
  it("keeps the newer version's snapshot when an older list finishes after it", async () => {
    const { table, create } = await listCacheTable(store);
    await create("one");
    const clock = () => Date.now() + 3 * settleMs;
    const a = container(store.db, table, clock);
    const older = await a.list.version(soon());
    await create("two");
    const newer = await a.list.version(soon());
    expect((await a.list.categories(newer, soon())).map((c) => c.id)).toEqual([1, 2]);
    expect((await a.list.categories(older, soon())).map((c) => c.id)).toEqual([1]);
    // The cache holds the newer version: the next list at it reads nothing but the counter.
    expect(await a.ids()).toEqual([1, 2]);
    expect(a.reads).toEqual(["counter"]);
  });

  it("keeps the snapshot of a recreated table (a new epoch) even at a lower version", async () => {
    const { table, create } = await listCacheTable(store);
    await create("one");
    await create("two");
    const clock = () => Date.now() + 3 * settleMs;
    const a = container(store.db, table, clock);
    expect(await a.ids()).toEqual([1, 2]);
    // The table emptied and written anew: a new epoch, its version below the cached one.
    const direct = new Table(store.db, table);
    for (const key of [
      keys.counter("category"),
      keys.resource("category", 1),
      keys.resource("category", 2),
    ]) {
      await direct.delete(key, soon());
    }
    const recreated = new CategoryStore(store.db, table, () => start);
    await recreated.create({ name: "fresh" }, "r-fresh", soon());
    expect(await a.ids()).toEqual([1]);
    expect(await a.ids()).toEqual([1]);
    expect(a.reads).toEqual(["counter"]);
  });
});

describe("a list stores what it read at an unchanged version too", () => {
  it("forgets a hole once its put landed without a commit, reading only the counter next", async () => {
    const { table, writer, create, landUncommitted } = await listCacheTable(store);
    await create("one");
    const id = await writer.nextId(soon());
    const clock = Date.now();
    const a = container(store.db, table, () => clock);
    expect(await a.ids()).toEqual([1]);
    await landUncommitted(id);
    expect(await a.ids()).toEqual([1, 2]);
    expect(a.reads.sort()).toEqual(["counter", "ids 2"]);
    expect(await a.ids()).toEqual([1, 2]);
    expect(a.reads).toEqual(["counter"]);
  });
});

describe("a category read within settleMs of its stored createdAt is dropped by its withdrawal", () => {
  it("drops a just-stored category withdrawn after a list read it, the version unchanged", async () => {
    const { table, writer, create, landUncommitted } = await listCacheTable(store);
    await create("one");
    const id = await writer.nextId(soon());
    await landUncommitted(id);
    const a = container(store.db, table);
    expect(await a.ids()).toEqual([1, 2]);
    const direct = new Table(store.db, table);
    await direct.put(keys.withdrawal("category", Date.now(), id), { id, at: Date.now() }, soon());
    await direct.delete(keys.resource("category", id), soon());
    expect(await a.ids()).toEqual([1]);
    expect(a.reads).toEqual(["counter"]);
  });
});
