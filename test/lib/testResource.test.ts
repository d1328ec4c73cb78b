/**
 * A second resource, declared in the tests only (test/support/tags.ts), through everything the
 * service does with one: create, list, an idempotent replay, a conditional list and a withdrawal,
 * on the same table as the categories and beside them, each keeping to its own keys.
 */
import { afterEach, describe, expect, it } from "vitest";
import type { Category, NewCategory } from "../../lib/category.ts";
import type { ListVersion } from "../../lib/categoryList/cache.ts";
import { listVersion } from "../../lib/categoryList/cache.ts";
import { CategoryList, ResourceList } from "../../lib/categoryList/reader.ts";
import { StoreUnavailableError } from "../../lib/errors.ts";
import { entityTag, isNotModified } from "../../lib/http/conditional.ts";
import { IdempotentCreator } from "../../lib/idempotency/creator.ts";
import { fingerprintOf } from "../../lib/idempotency/record.ts";
import { CategoryStore, ResourceStore } from "../../lib/repositories/categories.ts";
import { IdempotencyRecordStore } from "../../lib/repositories/idempotencyRecords.ts";
import { text } from "../../lib/table/item.ts";
import { keys, partitions } from "../../lib/table/schema.ts";
import { Table } from "../../lib/table/table.ts";
import type { FaultProxy } from "../support/faultProxy.ts";
import { soon, useFaultyStore } from "../support/dynamo.ts";
import type { NewTag, Tag } from "../support/tags.ts";
import { tagResource } from "../support/tags.ts";

const store = useFaultyStore();
const proxy = (): FaultProxy => store.proxy;
afterEach(() => {
  proxy().clear();
});

/** Tags and categories on one table: their stores, creators and lists, and the table itself. */
async function rig() {
  const name = await store.newTable();
  const records = new IdempotencyRecordStore(store.db, name);
  const tags = new ResourceStore<NewTag, Tag>(store.db, name, tagResource);
  const categories = new CategoryStore(store.db, name);
  return {
    table: new Table(store.db, name),
    tags,
    categories,
    createTag: new IdempotentCreator(records, tags, Date.now, "createTag"),
    createCategory: new IdempotentCreator<NewCategory, Category>(
      records,
      categories,
      Date.now,
      "createCategory",
    ),
    tagList: () => new ResourceList(store.db, name, tagResource, Date.now),
    categoryList: () => new CategoryList(store.db, name, Date.now),
    /** The tags store through the fault proxy. */
    faultyTags: new ResourceStore<NewTag, Tag>(store.client, name, tagResource),
  };
}

/** What a list answers now: its first step, then the items. */
async function listed<S>(list: {
  version(deadline: number): Promise<ListVersion>;
  categories(version: ListVersion, deadline: number): Promise<readonly S[]>;
}): Promise<readonly S[]> {
  return list.categories(await list.version(soon()), soon());
}

describe("a resource declared in the tests is created and listed on its own keys", () => {
  it("stores tags under TAG and its counter, beside categories with the same ids, each listing its own", async () => {
    const { table, tags, categories, tagList, categoryList } = await rig();
    expect(await tags.create({ label: "new", colour: "red" }, "r1", soon())).toEqual({
      id: 1,
      label: "new",
      colour: "red",
    });
    await tags.create({ label: "sale" }, "r2", soon());
    await categories.create({ name: "dog" }, "r3", soon());
    const stored = await table.get(keys.resource("tag", 2), soon());
    expect(stored && text(stored, "pk")).toBe("TAG");
    expect(await table.get(keys.counter("tag"), soon())).toBeDefined();
    const expected = [
      { id: 1, label: "new", colour: "red" },
      { id: 2, label: "sale" },
    ];
    expect(await tags.list(soon())).toEqual(expected);
    expect(await listed(tagList())).toEqual(expected);
    expect(await listed(categoryList())).toEqual([{ id: 1, name: "dog" }]);
  });
});

describe("an Idempotency-Key belongs to one operation: the same key on two creates is two records", () => {
  it("replays a tag's answer, refuses another body, and leaves a category under the same key alone", async () => {
    const { tags, createTag, createCategory, categories } = await rig();
    const first = await createTag.create("scope", "k", { label: "new" }, "r1", soon());
    expect(first).toEqual({ category: { id: 1, label: "new" }, replayed: false });
    expect(await createTag.create("scope", "k", { label: "new" }, "r2", soon())).toEqual({
      ...first,
      replayed: true,
    });
    await expect(
      createTag.create("scope", "k", { label: "old" }, "r3", soon()),
    ).rejects.toMatchObject({ status: 422, code: "idempotency_key_reused" });
    // The same key and scope on another operation: a create of its own, not a reuse.
    expect(await createCategory.create("scope", "k", { name: "dog" }, "r4", soon())).toEqual({
      category: { id: 1, name: "dog" },
      replayed: false,
    });
    expect(await tags.list(soon())).toEqual([{ id: 1, label: "new" }]);
    expect(await categories.list(soon())).toEqual([{ id: 1, name: "dog" }]);
  });

  it("reads no record of the layout before operations were named: that one was categories'", async () => {
    const { table, createTag } = await rig();
    const before = { fingerprint: fingerprintOf({ label: "new" }), owner: "before" };
    const response = JSON.stringify({ id: 9, label: "new" });
    const ttl = Math.floor(Date.now() / 1000) + 3600;
    await table.put(keys.legacyIdempotency("scope", "k"), { ...before, ttl, response }, soon());
    expect(await createTag.create("scope", "k", { label: "new" }, "r1", soon())).toEqual({
      category: { id: 1, label: "new" },
      replayed: false,
    });
  });
});

describe("a conditional list of tags moves with tags only", () => {
  it("answers not modified to the tag it gave until a tag is created, whatever categories do", async () => {
    const { tags, categories, tagList } = await rig();
    await tags.create({ label: "new" }, "r1", soon());
    const list = tagList();
    const tagged = entityTag(listVersion((await list.version(soon())).counter), undefined);
    const asked = { headers: { "if-none-match": tagged } };
    const current = async () => listVersion((await list.version(soon())).counter);
    expect(isNotModified(asked, await current())).toBe(true);
    await categories.create({ name: "dog" }, "r2", soon());
    expect(isNotModified(asked, await current())).toBe(true);
    await tags.create({ label: "sale" }, "r3", soon());
    expect(isNotModified(asked, await current())).toBe(false);
  });
});

describe("a failed tag create withdraws its write, and a list that saw it drops it", () => {
  it("records the withdrawal under the tag's counter, and lists of tags (not categories) take it", async () => {
    const { table, faultyTags, tags, tagList, categoryList, categories } = await rig();
    await categories.create({ name: "dog" }, "r0", soon());
    const warm = tagList();
    const categoryCache = categoryList();
    expect(await listed(warm)).toEqual([]);
    // The put lands, its answer is lost, and its retry is not answered before the deadline.
    proxy().inject({ fault: "lost_response", operation: "PutItem", times: 1 });
    proxy().inject({ fault: "slow", operation: "PutItem", times: 1, delayMs: 2_000 });
    const failed = expect(
      faultyTags.create({ label: "lost" }, "r1", Date.now() + 400),
    ).rejects.toThrow(StoreUnavailableError);
    // The warm list reads the tag while its create is still deciding that it failed.
    while ((await table.get(keys.resource("tag", 1), soon())) === undefined) {
      await new Promise((done) => setTimeout(done, 5));
    }
    expect(await listed(warm)).toEqual([{ id: 1, label: "lost" }]);
    await failed;
    proxy().clear();
    const inCounter = await table.queryAll(
      { partition: partitions.counter, consistent: true },
      soon(),
    );
    const withdrawals = inCounter
      .map((item) => text(item, "sk") ?? "")
      .filter((sk) => sk.includes("#"));
    expect(withdrawals).toEqual([expect.stringMatching(/^tag#withdrawn#\d{15}#1$/)]);
    expect(await tags.list(soon())).toEqual([]);
    expect(await listed(warm)).toEqual([]);
    expect(await listed(categoryCache)).toEqual([{ id: 1, name: "dog" }]);
  });
});
