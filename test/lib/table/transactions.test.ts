/**
 * Table.transactWrite against a store that has TransactWriteItems (DynamoDB Local, started here
 * whatever the run's store, so every run where Java is present holds the transaction path to the
 * real API) and against one that has none (dynalite: the caller's fallback).
 */
import { beforeAll, describe, expect, it } from "vitest";
import type { DynamoDb } from "../../../lib/dynamodb.ts";
import { DynamoDbError, isConditionFailure } from "../../../lib/table/errors.ts";
import { num, text } from "../../../lib/table/item.ts";
import type { Write } from "../../../lib/table/table.ts";
import { Table } from "../../../lib/table/table.ts";
import type { TestStore } from "../../support/dynamo.ts";
import { javaMissing, soon, useEmbeddedDynamo, useFaultyStore } from "../../support/dynamo.ts";
import { skipWithout } from "../../support/missingTool.ts";
import { failureOf } from "../helpers.ts";

let partitionCount = 0;
const freshPartition = (): string => `TX#${++partitionCount}`;
const at = (partition: string, sk: string) => ({ pk: partition, sk });

/** A table on `store` over a client that counts its TransactWriteItems calls. */
function counting(store: TestStore, tableName: string) {
  let calls = 0;
  const db = new Proxy(store.db, {
    get(target, name, receiver): unknown {
      if (name !== "call") return Reflect.get(target, name, receiver) as unknown;
      return (operation: string, input: object, deadline: number): Promise<unknown> => {
        if (operation === "TransactWriteItems") calls++;
        return target.call(operation, input, deadline);
      };
    },
  }) satisfies DynamoDb;
  return { table: new Table(db, tableName), calls: () => calls };
}

/** Every item of the partition as [sk, n, tag], in sort-key order. */
async function contents(table: Table, partition: string) {
  return (await table.queryAll({ partition }, soon())).map((item) => [
    text(item, "sk"),
    num(item, "n"),
    text(item, "tag"),
  ]);
}

describe("on a store with transactions (DynamoDB Local), transactWrite makes every write or none", () => {
  skipWithout(javaMissing);
  const store = useFaultyStore({ engine: "dynamodb-local" });
  let tableName = "";
  let table: Table;
  beforeAll(async () => {
    if (javaMissing) return;
    tableName = await store.newTable();
    table = new Table(store.db, tableName);
  });

  /** n = :n, with a name placeholder for n (as reserved words need). */
  const nIs = (n: number) => ({ text: "#n = :n", names: { "#n": "n" }, values: { ":n": n } });

  it("a put, an update and a delete, each with its placeholders, land together and answer true", async () => {
    const partition = freshPartition();
    await table.put(at(partition, "b"), { n: 1 }, soon());
    await table.put(at(partition, "c"), { n: 1 }, soon());
    const made = await table.transactWrite(
      [
        {
          kind: "put",
          key: at(partition, "a"),
          fields: { n: 7, tag: "new" },
          condition: { text: "attribute_not_exists(pk)" },
        },
        {
          kind: "update",
          key: at(partition, "b"),
          update: {
            text: "SET #n = #n + :step, #t = :tag",
            names: { "#n": "n", "#t": "tag" },
            values: { ":step": 2, ":tag": "bumped" },
          },
          condition: nIs(1),
        },
        { kind: "delete", key: at(partition, "c"), condition: nIs(1) },
      ],
      soon(),
    );
    expect(made).toBe(true);
    expect(await contents(table, partition)).toEqual([
      ["a", 7, "new"],
      ["b", 3, "bumped"],
    ]);
  });

  it("a condition refused in write k of n cancels every write, thrown as a ConditionalCheckFailedException naming write k", async () => {
    for (const refused of [1, 2, 3]) {
      const partition = freshPartition();
      await table.put(at(partition, "b"), { n: 1 }, soon());
      await table.put(at(partition, "c"), { n: 1 }, soon());
      const conditions = [1, 2, 3].map((k) => (k === refused ? nIs(0) : undefined));
      const writes: Write[] = [
        {
          kind: "put",
          key: at(partition, "a"),
          fields: { n: 7 },
          condition: conditions[0] && { text: "attribute_exists(pk)" },
        },
        {
          kind: "update",
          key: at(partition, "b"),
          update: { text: "SET n = :two", values: { ":two": 2 } },
          condition: conditions[1],
        },
        { kind: "delete", key: at(partition, "c"), condition: conditions[2] },
      ];
      const failure = await failureOf(table.transactWrite(writes, soon()));
      expect(isConditionFailure(failure)).toBe(true);
      expect(failure).toMatchObject({ type: "ConditionalCheckFailedException", statusCode: 400 });
      expect(String(failure)).toContain(`the condition of write ${refused} of 3 did not hold`);
      expect(await contents(table, partition)).toEqual([
        ["b", 1, undefined],
        ["c", 1, undefined],
      ]);
    }
  });

  it("a cancellation for another reason passes on as it is (an update past the 400 KB item limit)", async () => {
    const partition = freshPartition();
    await table.put(at(partition, "a"), { n: 1, tag: "x".repeat(300_000) }, soon());
    const failure = await failureOf(
      table.transactWrite(
        [
          { kind: "put", key: at(partition, "b"), fields: { n: 2 } },
          {
            kind: "update",
            key: at(partition, "a"),
            update: { text: "SET more = :more", values: { ":more": "y".repeat(200_000) } },
          },
        ],
        soon(),
      ),
    );
    expect(failure).toBeInstanceOf(DynamoDbError);
    expect(failure).toMatchObject({
      type: "TransactionCanceledException",
      reasons: ["None", "ValidationError"],
    });
    expect(isConditionFailure(failure)).toBe(false);
    const items = await table.queryAll({ partition, projection: ["sk", "more"] }, soon());
    expect(items.map((item) => [text(item, "sk"), text(item, "more")])).toEqual([["a", undefined]]);
  });

  it("another refusal passes on as it is (two writes on one item)", async () => {
    const partition = freshPartition();
    const attempt = table.transactWrite(
      [
        { kind: "put", key: at(partition, "a"), fields: { n: 1 } },
        { kind: "delete", key: at(partition, "a") },
      ],
      soon(),
    );
    await expect(attempt).rejects.toMatchObject({ type: "ValidationException" });
    expect(await contents(table, partition)).toEqual([]);
  });

  it("a transaction retried after its answer was lost is the one made: true, each write once", async () => {
    const partition = freshPartition();
    await table.put(at(partition, "b"), { n: 1 }, soon());
    store.proxy.inject({ fault: "lost_response", operation: "TransactWriteItems", times: 1 });
    const made = await new Table(store.client, tableName).transactWrite(
      [
        {
          kind: "put",
          key: at(partition, "a"),
          fields: { n: 7 },
          condition: { text: "attribute_not_exists(pk)" },
        },
        {
          kind: "update",
          key: at(partition, "b"),
          update: { text: "ADD #n :one", names: { "#n": "n" }, values: { ":one": 1 } },
        },
      ],
      soon(),
    );
    expect(made).toBe(true);
    expect(store.proxy.injected.get("lost_response")).toBe(1);
    expect(await contents(table, partition)).toEqual([
      ["a", 7, undefined],
      ["b", 2, undefined],
    ]);
  });

  it("asks the store for every transaction once it has answered one", async () => {
    const { table: countingTable, calls } = counting(store, tableName);
    const partition = freshPartition();
    for (const sk of ["a", "b"]) {
      expect(
        await countingTable.transactWrite(
          [{ kind: "put", key: at(partition, sk), fields: { n: 1 } }],
          soon(),
        ),
      ).toBe(true);
    }
    expect(calls()).toBe(2);
    expect(await contents(table, partition)).toEqual([
      ["a", 1, undefined],
      ["b", 1, undefined],
    ]);
  });
});

describe("on a store without transactions (dynalite), transactWrite answers false and writes nothing", () => {
  const store = useEmbeddedDynamo({ engine: "dynalite" });
  let tableName = "";
  beforeAll(async () => {
    tableName = await store.newTable();
  });

  it("answers false with nothing written, and asks the store only once", async () => {
    const { table, calls } = counting(store, tableName);
    const partition = freshPartition();
    await table.put(at(partition, "b"), { n: 1 }, soon());
    const writes: Write[] = [
      { kind: "put", key: at(partition, "a"), fields: { n: 7 } },
      {
        kind: "update",
        key: at(partition, "b"),
        update: { text: "SET n = :n", values: { ":n": 2 } },
      },
      { kind: "delete", key: at(partition, "b") },
    ];
    expect(await table.transactWrite(writes, soon())).toBe(false);
    expect(await table.transactWrite(writes.slice(0, 1), soon())).toBe(false);
    expect(calls()).toBe(1);
    expect(await contents(table, partition)).toEqual([["b", 1, undefined]]);
  });
});
