import { beforeAll, describe, expect, it } from "vitest";
import { DynamoDb } from "../../lib/dynamodb.ts";
import { DynamoDbError, isRetryable } from "../../lib/table/errors.ts";
import { StoreUnavailableError } from "../../lib/errors.ts";
import type { FaultProxy } from "../support/faultProxy.ts";
import { soon, useFaultyStore } from "../support/dynamo.ts";
import { scaled } from "../support/speed.ts";

const store = useFaultyStore({ attemptTimeoutMs: 300, maxDelayMs: 50 });
const proxy = (): FaultProxy => store.proxy;
let table: string;

beforeAll(async () => {
  table = await store.newTable();
});

const getItem = (deadline = soon()) =>
  store.client.call(
    "GetItem",
    { TableName: table, Key: { pk: { S: "X" }, sk: { S: "y" } } },
    deadline,
  );

describe("calls are SigV4-signed DynamoDB JSON requests", () => {
  it("round-trips a real operation against the embedded store", async () => {
    await expect(getItem()).resolves.toEqual({});
  });

  it("reports DynamoDB's own errors by type, without retrying them", async () => {
    proxy().clear();
    const before = proxy().seen.get("DescribeTable") ?? 0;
    const error: unknown = await store.client
      .call("DescribeTable", { TableName: "no-such-table" }, soon())
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DynamoDbError);
    expect((error as DynamoDbError).type).toBe("ResourceNotFoundException");
    expect(isRetryable(error)).toBe(false);
    expect(proxy().seen.get("DescribeTable")).toBe(before + 1);
  });
});

describe("throttling, 5xx, resets and slow answers are retried with backoff", () => {
  it.each([
    "provisioned_throughput_exceeded",
    "throttling",
    "server_error",
    "service_unavailable",
    "reset",
    "slow",
  ] as const)("recovers from three %s faults in a row", async (fault) => {
    proxy().clear();
    const before = proxy().injected.get(fault) ?? 0;
    proxy().inject({ fault, operation: "GetItem", times: 3, delayMs: 1000 });
    await expect(getItem()).resolves.toEqual({});
    expect((proxy().injected.get(fault) ?? 0) - before).toBeGreaterThanOrEqual(3);
  });
});

describe("retries stop at the request's deadline with StoreUnavailableError", () => {
  it("gives up on a store that keeps throttling, within the budget", async () => {
    proxy().clear();
    proxy().inject({ fault: "throttling", times: Number.POSITIVE_INFINITY });
    const started = Date.now();
    await expect(getItem(Date.now() + 400)).rejects.toBeInstanceOf(StoreUnavailableError);
    // The deadline, plus the last attempt's way back on a busy machine (test/support/speed.ts).
    expect(Date.now() - started).toBeLessThan(400 + scaled(400));
    proxy().clear();
  });

  it("names the store's last answer as the cause, not an attempt the deadline cut short", async () => {
    proxy().clear();
    proxy().inject({ fault: "throttling", operation: "GetItem", times: 2 });
    proxy().inject({ fault: "slow", operation: "GetItem", times: 1, delayMs: 10_000 });
    // Whole attempts of 10 s, so the third, slow one is cut short by the 2 s deadline.
    const client = new DynamoDb({
      region: "local",
      endpoint: proxy().endpoint,
      credentials: () => Promise.resolve({ accessKeyId: "local", secretAccessKey: "local" }),
      attemptTimeoutMs: 10_000,
      baseDelayMs: 5,
    });
    const error: unknown = await client
      .call("GetItem", { TableName: table, Key: { pk: { S: "X" }, sk: { S: "y" } } }, soon(2000))
      .catch((e: unknown) => e);
    client.close();
    proxy().clear();
    expect(error).toBeInstanceOf(StoreUnavailableError);
    expect((error as Error).message).toMatch(
      /^DynamoDB GetItem still failing after 3 attempt\(s\), the last cut short at \d+ ms by the deadline$/,
    );
    expect((error as Error).cause).toBeInstanceOf(DynamoDbError);
    expect(((error as Error).cause as DynamoDbError).type).toBe("ThrottlingException");
  });

  it("gives up on a store that is unreachable", async () => {
    const unreachable = new DynamoDb({
      region: "local",
      endpoint: "http://127.0.0.1:9",
      credentials: () => Promise.resolve({ accessKeyId: "a", secretAccessKey: "b" }),
      baseDelayMs: 5,
    });
    await expect(
      unreachable.call("GetItem", { TableName: table, Key: {} }, Date.now() + 300),
    ).rejects.toBeInstanceOf(StoreUnavailableError);
    unreachable.close();
  });
});
