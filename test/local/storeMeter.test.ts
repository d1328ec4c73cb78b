/**
 * The store meter the bench and the abuse run read their units from: the store's own
 * ConsumedCapacity, the rate limit's bucket calls kept apart, a refused conditional write counted
 * as the unit it costs only when asked, and a reset that starts from zero.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { DynamoDb } from "../../lib/dynamodb.ts";
import { localClient } from "../../local/embeddedDynamo.ts";
import type { StoreMeter } from "../../local/storeMeter.ts";
import { startStoreMeter } from "../../local/storeMeter.ts";
import { soon, useEmbeddedDynamo } from "../support/dynamo.ts";

const store = useEmbeddedDynamo();
let table: string;
const opened: { meter: StoreMeter; db: DynamoDb }[] = [];

beforeAll(async () => {
  table = await store.newTable();
});

afterAll(async () => {
  for (const { meter, db } of opened) {
    db.close();
    await meter.close();
  }
});

async function metered(refusedWriteUnit: boolean): Promise<{ meter: StoreMeter; db: DynamoDb }> {
  const meter = await startStoreMeter(store.endpoint, { refusedWriteUnit });
  const opening = { meter, db: localClient(meter.endpoint) };
  opened.push(opening);
  return opening;
}

const put = (db: DynamoDb, pk: string, sk: string, condition?: string) =>
  db.call(
    "PutItem",
    {
      TableName: table,
      Item: { pk: { S: pk }, sk: { S: sk }, name: { S: "dog" } },
      ...(condition && { ConditionExpression: condition }),
    },
    soon(),
  );

describe("the meter sums the store's own units, the rate limit's bucket calls apart", () => {
  it("counts a request's write and consistent read, and a bucket's write under limiter", async () => {
    const { meter, db } = await metered(false);
    await put(db, "CATEGORY", "0000000001");
    const key = { pk: { S: "CATEGORY" }, sk: { S: "0000000001" } };
    await db.call("GetItem", { TableName: table, Key: key, ConsistentRead: true }, soon());
    await put(db, "RATELIMIT#key_1", "bucket");
    expect(meter.requests).toEqual({ writeUnits: 1, readUnits: 1, calls: 2, refusedWrites: 0 });
    expect(meter.limiter).toEqual({ writeUnits: 1, readUnits: 0, calls: 1, refusedWrites: 0 });
  });
});

describe("each bucket's calls are summed apart too: what each key's limit costs", () => {
  it("two keys' buckets, and a refused write on one of them", async () => {
    const { meter, db } = await metered(true);
    await put(db, "RATELIMIT#key_a", "bucket");
    await put(db, "RATELIMIT#key_b", "bucket");
    await expect(
      put(db, "RATELIMIT#key_b", "bucket", "attribute_not_exists(pk)"),
    ).rejects.toThrow();
    await put(db, "CATEGORY", "0000000009");
    expect(meter.buckets.get("RATELIMIT#key_a")).toEqual({
      ...{ writeUnits: 1, readUnits: 0, calls: 1, refusedWrites: 0 },
    });
    expect(meter.buckets.get("RATELIMIT#key_b")).toEqual({
      ...{ writeUnits: 2, readUnits: 0, calls: 2, refusedWrites: 1 },
    });
    expect([...meter.buckets.keys()].sort()).toEqual(["RATELIMIT#key_a", "RATELIMIT#key_b"]);
    expect(meter.limiter.writeUnits).toBe(3);
    meter.reset();
    expect(meter.buckets.size).toBe(0);
  });
});

describe("a refused conditional write costs a unit only where the meter is asked to count it", () => {
  it.each([
    [false, 0],
    [true, 1],
  ])("refusedWriteUnit %s: %i write unit for the refused write", async (counted, units) => {
    const { meter, db } = await metered(counted);
    await put(db, "RATELIMIT#key_2", `bucket-${String(counted)}`);
    meter.reset();
    await expect(
      put(db, "RATELIMIT#key_2", `bucket-${String(counted)}`, "attribute_not_exists(pk)"),
    ).rejects.toThrow();
    expect(meter.limiter).toEqual({ writeUnits: units, readUnits: 0, calls: 1, refusedWrites: 1 });
    expect(meter.requests.calls).toBe(0);
  });
});

describe("reset starts both counts from zero", () => {
  it("forgets what came before it", async () => {
    const { meter, db } = await metered(true);
    await put(db, "CATEGORY", "0000000002");
    await put(db, "RATELIMIT#key_3", "bucket");
    meter.reset();
    const zero = { writeUnits: 0, readUnits: 0, calls: 0, refusedWrites: 0 };
    expect([meter.requests, meter.limiter]).toEqual([zero, zero]);
    await put(db, "CATEGORY", "0000000003");
    expect(meter.requests).toEqual({ ...zero, writeUnits: 1, calls: 1 });
  });
});
