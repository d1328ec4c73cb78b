/**
 * The list cache (lib/categoryList/) against the real embedded store. Each "container" is its own
 * CategoryList, as a Lambda container has; writes go through the categories repository, or straight
 * to the table to land a put without its commit, or out of id order. The reads that bring a
 * cache up to date (new ids, holes, a put landed without its commit, a withdrawal at an unchanged
 * version) are test/lib/categoryList/reader.test.ts's.
 */
import { describe, expect, it } from "vitest";
import { settleMs } from "../../lib/categoryList/cache.ts";
import { CategoryStore } from "../../lib/repositories/categories.ts";
import { keys } from "../../lib/table/schema.ts";
import { Table } from "../../lib/table/table.ts";
import { soon, useFaultyStore } from "../support/dynamo.ts";
import { container, listCacheTable, settled } from "../support/listCache.ts";

const store = useFaultyStore({ attemptTimeoutMs: 2_000 });
const setup = () => listCacheTable(store);

describe("in steady state a list costs one counter read, whatever the store holds", () => {
  it("serves a second list from the cache after reading only the counter", async () => {
    const { table, create } = await setup();
    for (const name of ["a", "b", "c"]) await create(name);
    const a = container(store.db, table, settled);
    expect(await a.ids()).toEqual([1, 2, 3]);
    expect(await a.ids()).toEqual([1, 2, 3]);
    expect(a.reads).toEqual(["counter"]);
  });
});

describe("a list never misses a create answered 201 before it began", () => {
  it("lists a create that landed between another list's counter read and its Query", async () => {
    const { table, create, writer, landUncommitted } = await setup();
    await create("one");
    const a = container(store.db, table);
    const counter = await a.list.version(soon());
    await landUncommitted(await writer.nextId(soon()));
    await create("three");
    const raced = await a.list.categories(counter, soon());
    expect(raced.map((c) => c.id)).toEqual([1]);
    expect(await a.ids()).toEqual([1, 2, 3]);
  });

  it("lists another container's creates in a container whose cache is older", async () => {
    const { table, create } = await setup();
    const a = container(store.db, table);
    const b = container(store.db, table);
    await create("one");
    expect(await a.ids()).toEqual([1]);
    expect(await b.ids()).toEqual([1]);
    await create("two");
    expect(await b.ids()).toEqual([1, 2]);
    expect(await a.ids()).toEqual([1, 2]);
  });
});

describe("a withdrawn create is not listed after its withdrawal, even by a cache that saw it", () => {
  /**
   * Category 1, then a create of 2 whose put lands at once but whose answer is held past its
   * deadline, so it must fail and withdraw; container `a` lists 2 while the put is in flight.
   */
  async function doomedCreate() {
    const { table, create, writer } = await setup();
    await create("one");
    const a = container(store.db, table);
    const id = await writer.nextId(soon());
    store.proxy.inject({ fault: "slow", operation: "PutItem", times: 1, delayMs: 600 });
    const faulty = new CategoryStore(store.client, table);
    const failing = faulty.put(id, { name: "doomed" }, "r-doomed", Date.now() + 300);
    await new Promise((done) => setTimeout(done, 100));
    expect(await a.ids()).toEqual([1, 2]);
    return { table, a, id, failing };
  }

  it("drops a category whose commit failed after a container had listed its landed put", async () => {
    const { table, a, failing } = await doomedCreate();
    await expect(failing).rejects.toThrow();
    expect(await a.ids()).toEqual([1]);
    expect(await container(store.db, table).ids()).toEqual([1]);
  });

  it("hides a category whose withdrawal could not delete it (the store unreachable)", async () => {
    store.proxy.inject({ fault: "server_error", operation: "DeleteItem", times: Infinity });
    const { table, a, id, failing } = await doomedCreate();
    await expect(failing).rejects.toThrow();
    store.proxy.clear();
    expect(await new CategoryStore(store.db, table).get(id, soon())).toBeDefined();
    expect(await a.ids()).toEqual([1]);
    expect(await container(store.db, table).ids()).toEqual([1]);
  });

  it("drops a category withdrawn while the container sat idle for minutes", async () => {
    const { table, create, writer, landUncommitted } = await setup();
    await create("one");
    let clock = Date.now();
    const a = container(store.db, table, () => clock);
    const id = await writer.nextId(soon());
    await landUncommitted(id);
    expect(await a.ids()).toEqual([1, 2]);
    const direct = new Table(store.db, table);
    await direct.put(keys.withdrawal("category", Date.now(), id), { id, at: Date.now() }, soon());
    await direct.delete(keys.resource("category", id), soon());
    await writer.commit(soon());
    clock += 5 * settleMs;
    expect(await a.ids()).toEqual([1]);
  });

  it("reads the withdrawals with the counter: one read, in the minute after a create too", async () => {
    const { table, create } = await setup();
    await create("one");
    let clock = Date.now();
    const a = container(store.db, table, () => clock);
    expect(await a.ids()).toEqual([1]);
    clock += 1;
    expect(await a.ids()).toEqual([1]);
    expect(a.reads).toEqual(["counter"]);
  });
});
