import { describe, expect, it } from "vitest";
import { CategoryStore } from "../../lib/repositories/categories.ts";
import { idSortKey } from "../../lib/table/schema.ts";
import type { FaultProxy } from "../support/faultProxy.ts";
import { soon, useFaultyStore } from "../support/dynamo.ts";

const store = useFaultyStore();
const proxy = (): FaultProxy => store.proxy;

async function freshStore(): Promise<CategoryStore> {
  return new CategoryStore(store.client, await store.newTable());
}

describe("ids come from a counter: 1, 2, 3 … in creation order", () => {
  it("assigns consecutive ids and returns the stored category", async () => {
    const categories = await freshStore();
    expect(await categories.create({ name: "dog" }, "r1", soon())).toEqual({ id: 1, name: "dog" });
    expect(await categories.create({ name: "cat", description: "Felines" }, "r2", soon())).toEqual({
      id: 2,
      name: "cat",
      description: "Felines",
    });
  });

  it("zero-pads the sort key so string order is id order for every safe integer", () => {
    expect(idSortKey(42)).toBe("0000000000000042");
    expect(idSortKey(Number.MAX_SAFE_INTEGER)).toBe("9007199254740991");
    expect(idSortKey(9) < idSortKey(10)).toBe(true);
  });
});

describe("concurrent creates never share an id and never lose a category", () => {
  it("stores 100 parallel creates under 100 distinct ids, all listed", async () => {
    const categories = await freshStore();
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
    const categories = await freshStore();
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

  it("omits description when a category has none, never null", async () => {
    const categories = await freshStore();
    await categories.create({ name: "dog" }, "r", soon());
    expect(await categories.list(soon())).toEqual([{ id: 1, name: "dog" }]);
  });
});

describe("a fault between taking an id and storing leaves the category wholly there or not at all", () => {
  it("a put whose answer was lost is recognised on retry, stored once", async () => {
    const categories = await freshStore();
    proxy().inject({ fault: "lost_response", operation: "PutItem", times: 1 });
    expect(await categories.create({ name: "dog" }, "req-1", soon())).toEqual({
      id: 1,
      name: "dog",
    });
    expect(await categories.list(soon())).toEqual([{ id: 1, name: "dog" }]);
  });

  it("a counter update whose answer was lost skips an id, never repeats one", async () => {
    const categories = await freshStore();
    await categories.create({ name: "a" }, "r1", soon());
    proxy().inject({ fault: "lost_response", operation: "UpdateItem", times: 1 });
    const second = await categories.create({ name: "b" }, "r2", soon());
    expect(second.id).toBe(3);
    expect((await categories.list(soon())).map((c) => c.id)).toEqual([1, 3]);
  });

  it("a put that keeps failing stores nothing and surfaces the failure", async () => {
    const categories = await freshStore();
    proxy().inject({
      fault: "server_error",
      operation: "PutItem",
      times: Number.POSITIVE_INFINITY,
    });
    await expect(categories.create({ name: "dog" }, "r", Date.now() + 300)).rejects.toThrow();
    proxy().clear();
    expect(await categories.list(soon())).toEqual([]);
  });
});
