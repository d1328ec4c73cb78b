/**
 * The list cache tests' parts (test/reliability/listCache*.test.ts): containers, each with its own
 * CategoryList as a Lambda container has, that record the reads they make; and a table with the
 * ways to write to it: through the categories repository, or straight to the table to land a put
 * without its commit.
 */
import { settleMs } from "../../lib/categoryList/cache.ts";
import { CategoryList } from "../../lib/categoryList/reader.ts";
import type { DynamoDb } from "../../lib/dynamodb.ts";
import type { Category } from "../../lib/category.ts";
import { CategoryStore } from "../../lib/repositories/categories.ts";
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
  const list = new CategoryList(recordingReads(db, reads), table, clock);
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

type Call = (operation: string, input: Request, deadline: number) => Promise<unknown>;
interface Request {
  readonly ExpressionAttributeValues?: Readonly<Record<string, { readonly S?: string }>>;
  readonly ExclusiveStartKey?: unknown;
  readonly RequestItems?: Readonly<Record<string, { readonly Keys: { sk: { S: string } }[] }>>;
}

/**
 * `db`, noting each read a list makes as the tests name them: "counter" (the Query of the counter
 * and the withdrawals beside it), "range low-high" (a Query of categories by id), "ids a,b"
 * (a BatchGetItem). Later pages of a Query are not noted again.
 */
function recordingReads(db: DynamoDb, reads: string[]): DynamoDb {
  const call: Call = (operation, input, deadline) => {
    const values = input.ExpressionAttributeValues ?? {};
    if (operation === "Query" && input.ExclusiveStartKey === undefined) {
      const [low, high] = [values[":skLow"]?.S, values[":skHigh"]?.S];
      reads.push(
        values[":pk"]?.S === keys.counter("category").pk
          ? "counter"
          : `range ${Number(low)}-${Number(high)}`,
      );
    }
    if (operation === "BatchGetItem") {
      const keyList = Object.values(input.RequestItems ?? {}).flatMap((table) => table.Keys);
      reads.push(`ids ${keyList.map((key) => Number(key.sk.S)).join(",")}`);
    }
    return db.call(operation, input, deadline);
  };
  return new Proxy(db, {
    get: (target, property): unknown =>
      property === "call" ? call : (Reflect.get(target, property) as unknown),
  });
}

/** A new table in `store`, and the ways the tests write to it. */
export async function listCacheTable(store: TestStore): Promise<ListCacheTable> {
  const table = await store.newTable();
  const writer = new CategoryStore(store.db, table);
  const create = async (name: string) => (await writer.create({ name }, `r-${name}`, soon())).id;
  const landUncommitted = (id: number) =>
    new Table(store.db, table).put(
      keys.resource("category", id),
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
