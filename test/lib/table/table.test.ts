import { beforeAll, describe, expect, it, vi } from "vitest";
import { conditionHeld, DynamoDbError, isConditionFailure } from "../../../lib/table/errors.ts";
import { num, text, toItem } from "../../../lib/table/item.ts";
import { idSortKey } from "../../../lib/table/schema.ts";
import { Table } from "../../../lib/table/table.ts";
import { soon, storeEngine, useEmbeddedDynamo } from "../../support/dynamo.ts";

const store = useEmbeddedDynamo();
let table: Table;
let tableName = "";

beforeAll(async () => {
  tableName = await store.newTable();
  table = new Table(store.db, tableName);
});

/** A fresh partition per test, so tests share the table but never each other's items. */
let partitionCount = 0;
const freshPartition = (): string => `TEST#${++partitionCount}`;

/** A fresh partition holding an item `{ i, ...fields }` under each id `i` of `ids`. */
async function partitionOf(ids: readonly number[], fields: Record<string, string> = {}) {
  const partition = freshPartition();
  for (const i of ids)
    await table.put({ pk: partition, sk: idSortKey(i) }, { i, ...fields }, soon());
  return partition;
}
const idKeys = (partition: string, count: number) =>
  Array.from({ length: count }, (_, i) => ({ pk: partition, sk: idSortKey(i + 1) }));

describe("queryAll reads every page of a partition, in sort-key order", () => {
  it("follows LastEvaluatedKey past DynamoDB's 1 MB page", async () => {
    // Four items of ~350 KB: more than one 1 MB page.
    const partition = await partitionOf([1, 2, 3, 4], { filler: "x".repeat(350_000) });
    const pages: number[] = [];
    for await (const page of table.queryPages({ partition }, soon())) pages.push(page.length);
    expect(pages.length).toBeGreaterThan(1);
    const all = await table.queryAll({ partition, projection: ["i"] }, soon());
    expect(all.map((item) => num(item, "i"))).toEqual([1, 2, 3, 4]);
    expect(all.every((item) => item.filler === undefined)).toBe(true);
  });
});

describe("queries take sort-key ranges, filters and projections", () => {
  async function seeded(): Promise<string> {
    const partition = freshPartition();
    for (let i = 1; i <= 6; i++) {
      await table.put(
        { pk: partition, sk: idSortKey(i) },
        { id: i, name: `n${i}`, kind: i % 2 ? "odd" : "even" },
        soon(),
      );
    }
    return partition;
  }
  const ids = (items: readonly Parameters<typeof num>[0][]): (number | undefined)[] =>
    items.map((item) => num(item, "id"));

  it("reads a closed range (BETWEEN), or the whole partition", async () => {
    const partition = await seeded();
    const between = { between: [idSortKey(2), idSortKey(4)] } as const;
    expect(ids(await table.queryAll({ partition, range: between }, soon()))).toEqual([2, 3, 4]);
    expect(ids(await table.queryAll({ partition }, soon()))).toEqual([1, 2, 3, 4, 5, 6]);
  });

  it("filters with its own placeholders and projects reserved words such as name", async () => {
    const partition = await seeded();
    const items = await table.queryAll(
      {
        partition,
        range: { between: [idSortKey(2), idSortKey(6)] },
        filter: { text: "#k = :kind", names: { "#k": "kind" }, values: { ":kind": "odd" } },
        projection: ["id", "name"],
        consistent: true,
      },
      soon(),
    );
    expect(items).toEqual([
      { id: { N: "3" }, name: { S: "n3" } },
      { id: { N: "5" }, name: { S: "n5" } },
    ]);
  });
});

describe("conditional writes answer whether their condition held; other faults pass on", () => {
  const absent = { text: "attribute_not_exists(pk)" };

  it("puts once when the item must not exist yet", async () => {
    const key = { pk: freshPartition(), sk: "one" };
    expect(await conditionHeld(table.put(key, { v: 1 }, soon(), absent))).toBe(true);
    expect(await conditionHeld(table.put(key, { v: 2 }, soon(), absent))).toBe(false);
    expect(num((await table.get(key, soon())) ?? {}, "v")).toBe(1);
  });

  it("updates and deletes only while their condition holds", async () => {
    const key = { pk: freshPartition(), sk: "one" };
    await table.put(key, { owner: "a", n: 1 }, soon());
    const ownedBy = (owner: string) => ({
      text: "#o = :me",
      names: { "#o": "owner" },
      values: { ":me": owner },
    });
    const bump = { text: "ADD n :one", values: { ":one": 1 } };
    expect(await conditionHeld(table.update(key, bump, soon(), { condition: ownedBy("b") }))).toBe(
      false,
    );
    const updated = await table.update(key, bump, soon(), {
      condition: ownedBy("a"),
      returnNew: true,
    });
    expect(updated).toEqual({ n: { N: "2" } });
    expect(await conditionHeld(table.delete(key, soon(), ownedBy("b")))).toBe(false);
    expect(await conditionHeld(table.delete(key, soon(), ownedBy("a")))).toBe(true);
    expect(await table.get(key, soon())).toBeUndefined();
  });

  it("classifies only ConditionalCheckFailedException as a failed condition", async () => {
    const key = { pk: freshPartition(), sk: "one" };
    const broken = table.put(key, { v: 1 }, soon(), { text: "attribute_not_exists(" });
    const error: unknown = await broken.catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(DynamoDbError);
    expect(isConditionFailure(error)).toBe(false);
    await expect(
      conditionHeld(table.put(key, { v: 1 }, soon(), { text: "attribute_not_exists(" })),
    ).rejects.toBeInstanceOf(DynamoDbError);
  });

  it("a failed condition answers the item it met (ALL_OLD), so the caller needs no read", async () => {
    const key = { pk: freshPartition(), sk: "one" };
    await table.put(key, { owner: "a" }, soon(), absent);
    const failure: unknown = await table
      .put(key, { owner: "b" }, soon(), absent)
      .catch((caught: unknown) => caught);
    if (!isConditionFailure(failure))
      throw new Error(`expected a failed condition: ${String(failure)}`);
    // DynamoDB and DynamoDB Local answer the item with the failure; dynalite 4.0.0 ignores
    // ReturnValuesOnConditionCheckFailure, so there (alone) collidedWith reads it.
    const answered = storeEngine === "dynalite" ? undefined : toItem({ ...key, owner: "a" });
    expect(failure.item).toEqual(answered);
    const met = await table.collidedWith(failure, key, soon());
    expect(met && text(met, "owner")).toBe("a");
  });
});

interface Sent {
  readonly operation: string;
  readonly input: Record<string, unknown>;
}

/**
 * `store.db` noting every request the table sends; `answer` may answer one in place of the store
 * (given the store's own call), as DynamoDB does when it processes part of a batch.
 */
function recording(
  answer?: (
    operation: string,
    input: Record<string, unknown>,
    call: (input: object) => Promise<unknown>,
  ) => Promise<unknown> | undefined,
): { readonly table: Table; readonly sent: Sent[] } {
  const sent: Sent[] = [];
  const db = store.db;
  const call = (operation: string, input: Record<string, unknown>, deadline: number) => {
    sent.push({ operation, input });
    const forward = (request: object) => db.call(operation, request, deadline);
    return answer?.(operation, input, forward) ?? forward(input);
  };
  const proxy = new Proxy(db, {
    get: (target, property): unknown =>
      property === "call" ? call : (Reflect.get(target, property) as unknown),
  });
  return { table: new Table(proxy, tableName), sent };
}

/** As DynamoDB may answer under throttling: each BatchGetItem processes only its first key. */
function firstKeyOnly(
  operation: string,
  input: Record<string, unknown>,
  forward: (input: object) => Promise<unknown>,
): Promise<unknown> | undefined {
  if (operation !== "BatchGetItem") return undefined;
  const request = (input.RequestItems as Record<string, { Keys: object[] }>)[tableName];
  const [first, ...rest] = request?.Keys ?? [];
  return forward({ RequestItems: { [tableName]: { ...request, Keys: [first] } } }).then(
    (output) => ({
      ...(output as object),
      ...(rest.length > 0 && { UnprocessedKeys: { [tableName]: { Keys: rest } } }),
    }),
  );
}

describe("every read of an item is strongly consistent (a list must see every create answered 201)", () => {
  it("asks GetItem and BatchGetItem for ConsistentRead, and a Query only when the spec says so", async () => {
    const { table: recorded, sent } = recording();
    const key = { pk: freshPartition(), sk: "one" };
    await recorded.get(key, soon());
    await recorded.batchGet([key], soon());
    await recorded.queryAll({ partition: key.pk }, soon());
    await recorded.queryAll({ partition: key.pk, consistent: true }, soon());
    expect(sent.map(({ operation, input }) => [operation, consistency(input)])).toEqual([
      ["GetItem", true],
      ["BatchGetItem", true],
      ["Query", undefined],
      ["Query", true],
    ]);
  });
});

/** The number of keys each BatchGetItem sent asked for, smallest first. */
const batchSizes = (sent: readonly Sent[]): (number | undefined)[] =>
  sent
    .map(
      ({ input }) =>
        (input.RequestItems as Record<string, { Keys: unknown[] }>)[tableName]?.Keys.length,
    )
    .sort((a, b) => (a ?? 0) - (b ?? 0));

function consistency(input: Record<string, unknown>): unknown {
  const requestItems = input.RequestItems as
    Record<string, { ConsistentRead?: unknown }> | undefined;
  return requestItems ? requestItems[tableName]?.ConsistentRead : input.ConsistentRead;
}

describe("a conditional write asks for the item it met (ALL_OLD): no read unit, no extra call", () => {
  it("sends ReturnValuesOnConditionCheckFailure ALL_OLD with every conditional put, update and delete", async () => {
    const { table: recorded, sent } = recording();
    const key = { pk: freshPartition(), sk: "one" };
    const always = { text: "attribute_not_exists(nothing)" };
    await recorded.put(key, { v: 1 }, soon(), always);
    await recorded.update(key, { text: "SET v = :v", values: { ":v": 2 } }, soon(), {
      condition: always,
    });
    await recorded.delete(key, soon(), always);
    expect(sent.map(({ input }) => input.ReturnValuesOnConditionCheckFailure)).toEqual([
      "ALL_OLD",
      "ALL_OLD",
      "ALL_OLD",
    ]);
  });
});

describe("an update answers the new attributes only when asked (ReturnValues defaults to NONE)", () => {
  it("answers nothing without returnNew, the updated attributes with it", async () => {
    const key = { pk: freshPartition(), sk: "one" };
    await table.put(key, { n: 1, other: "x" }, soon());
    const bump = { text: "ADD n :one", values: { ":one": 1 } };
    expect(await table.update(key, bump, soon())).toBeUndefined();
    expect(await table.update(key, bump, soon(), { returnNew: true })).toEqual({ n: { N: "3" } });
  });
});

describe("batchGet reads any number of keys, 100 a request, and leaves missing ones out", () => {
  it("reads 150 keys in two requests, projected, answering only those stored", async () => {
    const { table: recorded, sent } = recording();
    const stored = [1, 2, 99, 100, 101, 150];
    const partition = await partitionOf(stored, { other: "x" });
    const items = await recorded.batchGet(idKeys(partition, 150), soon(), ["i"]);
    expect(items.map((item) => num(item, "i")).sort((a, b) => (a ?? 0) - (b ?? 0))).toEqual(stored);
    expect(items.every((item) => Object.keys(item).join() === "i")).toBe(true);
    expect(batchSizes(sent)).toEqual([50, 100]);
  });

  it("asks 100 keys in one request and 101 in two (100 and 1)", async () => {
    const keyList = idKeys(await partitionOf([101]), 101);
    for (const count of [100, 101]) {
      const { table: recorded, sent } = recording();
      const items = await recorded.batchGet(keyList.slice(0, count), soon());
      expect(items.map((item) => num(item, "i"))).toEqual(count === 101 ? [101] : []);
      expect(batchSizes(sent)).toEqual(count === 101 ? [1, 100] : [100]);
    }
  });

  it("asks again for the keys DynamoDB left unprocessed (throttling) until none are left", async () => {
    const partition = await partitionOf([1, 2, 3]);
    const { table: recorded, sent } = recording(firstKeyOnly);
    const items = await recorded.batchGet(idKeys(partition, 3), soon());
    expect(items.map((item) => num(item, "i"))).toEqual([1, 2, 3]);
    expect(sent).toHaveLength(3);
  });
});

describe("unprocessed keys are asked again with exponential backoff (DynamoDB's advice for batch retries)", () => {
  it("sends the first request at once, then waits 50 ms, doubling before each retry up to 800 ms", async () => {
    const partition = await partitionOf([1, 2, 3, 4, 5, 6, 7]);
    // The wait the table asks before a retry is the last timer set before the retry is sent (the
    // client sets its own request timer only after that).
    const timers = vi.spyOn(globalThis, "setTimeout");
    const waits: unknown[] = [];
    let requests = 0;
    const { table: recorded, sent } = recording((operation, input, forward) => {
      if (operation === "BatchGetItem" && ++requests > 1) {
        waits.push(timers.mock.calls.at(-1)?.[1]);
      }
      return firstKeyOnly(operation, input, forward);
    });
    try {
      const reading = recorded.batchGet(idKeys(partition, 7), soon());
      expect(sent).toHaveLength(1);
      expect(await reading).toHaveLength(7);
    } finally {
      timers.mockRestore();
    }
    expect(waits).toEqual([50, 100, 200, 400, 800, 800]);
  });
});

describe("answers without the output members the API marks optional read as empty", () => {
  it("takes a BatchGetItem answer without Responses or UnprocessedKeys, and a Query page without Items", async () => {
    const partition = freshPartition();
    await table.put({ pk: partition, sk: "one" }, { i: 1 }, soon());
    let batches = 0;
    const { table: recorded } = recording((operation, input, forward) => {
      if (operation === "Query") {
        return forward(input).then((output) => ({ ...(output as object), Items: undefined }));
      }
      if (operation !== "BatchGetItem") return undefined;
      // First: nothing read, every key left for later; then: the read, no UnprocessedKeys.
      if (++batches === 1) {
        const request = (input.RequestItems as Record<string, object>)[tableName];
        return Promise.resolve({ UnprocessedKeys: { [tableName]: request } });
      }
      return forward(input).then((output) => ({
        ...(output as object),
        UnprocessedKeys: undefined,
      }));
    });
    const items = await recorded.batchGet([{ pk: partition, sk: "one" }], soon());
    expect(items.map((item) => num(item, "i"))).toEqual([1]);
    expect(batches).toBe(2);
    expect(await recorded.queryAll({ partition }, soon())).toEqual([]);
  });
});

describe("write makes one write of a transaction on its own, with its condition", () => {
  it("puts, updates and deletes, each refused when its condition does not hold", async () => {
    const key = { pk: freshPartition(), sk: "only" };
    await table.write({ kind: "put", key, fields: { n: 1 } }, soon());
    const never = { text: "n = :zero", values: { ":zero": 0 } };
    for (const write of [
      { kind: "put" as const, key, fields: { n: 5 }, condition: never },
      {
        kind: "update" as const,
        key,
        update: { text: "SET n = :five", values: { ":five": 5 } },
        condition: never,
      },
      { kind: "delete" as const, key, condition: never },
    ]) {
      expect(await conditionHeld(table.write(write, soon()))).toBe(false);
    }
    expect(num((await table.get(key, soon())) ?? {}, "n")).toBe(1);
    await table.write(
      { kind: "update", key, update: { text: "SET n = :two", values: { ":two": 2 } } },
      soon(),
    );
    expect(num((await table.get(key, soon())) ?? {}, "n")).toBe(2);
    await table.write({ kind: "delete", key }, soon());
    expect(await table.get(key, soon())).toBeUndefined();
  });
});
