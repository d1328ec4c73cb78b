/**
 * The list cache tests' parts (test/reliability/listCache*.test.ts): containers, each with its own
 * CategoryList as a Lambda container has, that record the reads they make; and a table with the
 * ways to write to it: through the categories repository, or straight to the table to land a put
 * without its commit.
 */
import { settleMs } from "../../lib/categoryList/cache.ts";
import { CategoryList } from "../../lib/categoryList/reader.ts";
import type { DynamoDb } from "../../lib/dynamodb.ts";
import type { Category } from "../../lib/repositories/categories.ts";
import { CategoryStore } from "../../lib/repositories/categories.ts";
import type { CategoryListSource } from "../../lib/repositories/categoryReads.ts";
import { CategoryReader } from "../../lib/repositories/categoryReads.ts";
import { keys } from "../../lib/table/schema.ts";
import { Table } from "../../lib/table/table.ts";
import type { TestStore } from "./dynamo.ts";
import { soon } from "./dynamo.ts";

/** Far enough ahead that every create made so far has settled (lib/categoryList/cache.ts). */
export const settled = (): number => Date.now() + 3 * settleMs;

export interface TestContainer {
  /** The reads of the last `ids()`. */
  readonly reads: string[];
  /** The ids a list answers now. */
  ids(): Promise<number[]>;
  readonly list: CategoryList;
}

export interface ListCacheTable {
  readonly table: string;
  readonly writer: CategoryStore;
  /** A create through the repository; its id. */
  readonly create: (name: string) => Promise<number>;
  /** A put that lands without its commit: a create still in flight. */
  readonly landUncommitted: (id: number) => Promise<void>;
}

/**
 * A container: its own cache, and the reads it made ("counter" is the one Query of the counter
 * and the recent withdrawals beside it).
 */
export function container(
  db: DynamoDb,
  table: string,
  clock: () => number = Date.now,
): TestContainer {
  const reads: string[] = [];
  const reader = new CategoryReader(db, table);
  const counted: CategoryListSource = {
    readCounter: (since, deadline) => (reads.push("counter"), reader.readCounter(since, deadline)),
    readRange: (low, high, deadline) => (
      reads.push(`range ${low}-${high}`),
      reader.readRange(low, high, deadline)
    ),
    readIds: (ids, deadline) => (reads.push(`ids ${ids.join(",")}`), reader.readIds(ids, deadline)),
  };
  const list = new CategoryList(counted, clock);
  return {
    reads,
    async ids(): Promise<number[]> {
      reads.length = 0;
      const categories = await list.categories(await list.version(soon()), soon());
      return categories.map((category: Category) => category.id);
    },
    list,
  };
}

/** A new table in `store`, and the ways the tests write to it. */
export async function listCacheTable(store: TestStore): Promise<ListCacheTable> {
  const table = await store.newTable();
  const writer = new CategoryStore(store.db, table);
  const create = async (name: string) => (await writer.create({ name }, `r-${name}`, soon())).id;
  const landUncommitted = (id: number) =>
    new Table(store.db, table).put(
      keys.category(id),
      {
        id,
        name: `n${id}`,
        createdAt: new Date().toISOString(),
        requestId: `r${id}`,
      },
      soon(),
    );
  return { table, writer, create, landUncommitted };
}
