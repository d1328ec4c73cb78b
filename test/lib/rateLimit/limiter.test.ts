/**
 * The per-key rate limit (lib/rateLimit/limiter.ts) on its real bucket in the embedded store,
 * through a recording proxy (every store call counted), with a clock the test moves.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DynamoDb } from "../../../lib/dynamodb.ts";
import { RateLimiter } from "../../../lib/rateLimit/limiter.ts";
import type { RateLimit } from "../../../lib/rateLimit/policy.ts";
import { leaseSize, parseRateLimit } from "../../../lib/rateLimit/policy.ts";
import { RateLimitBucketStore } from "../../../lib/repositories/rateLimitBuckets.ts";
import { keys } from "../../../lib/table/schema.ts";
import { num } from "../../../lib/table/item.ts";
import { Table } from "../../../lib/table/table.ts";
import { useEmbeddedDynamo } from "../../support/dynamo.ts";
import type { RecordingProxy } from "../../support/recordingDynamoProxy.ts";
import { startRecordingProxy } from "../../support/recordingDynamoProxy.ts";

const store = useEmbeddedDynamo();
let proxy: RecordingProxy | undefined;
let client: DynamoDb | undefined;

beforeAll(async () => {
  proxy = await startRecordingProxy(store.endpoint);
  client = new DynamoDb({
    region: "local",
    endpoint: proxy.endpoint,
    credentials: () => Promise.resolve({ accessKeyId: "local", secretAccessKey: "local" }),
    baseDelayMs: 5,
    attemptTimeoutMs: 200,
  });
});
afterAll(async () => {
  client?.close();
  await proxy?.close();
});

function limitOf(rate: string, burst: number): RateLimit {
  const limit = parseRateLimit(rate, burst);
  if (typeof limit === "string") throw new Error(limit);
  return limit;
}

/** The i-th container's limiter of a rig. */
function nth(limiters: readonly RateLimiter[], i: number): RateLimiter {
  const limiter = limiters[i];
  if (!limiter) throw new Error(`no container ${String(i)}`);
  return limiter;
}

/** A fresh table, a clock at a fixed moment and `containers` limiters sharing the bucket. */
async function rig(containers = 1, random: () => number = Math.random) {
  const tableName = await store.newTable();
  const clock = { t: 1_800_000_000_000 };
  const now = () => clock.t;
  const recorder = proxy;
  const db = client;
  if (!recorder || !db) throw new Error("beforeAll did not run");
  const limiters = Array.from(
    { length: containers },
    () =>
      new RateLimiter({
        buckets: new RateLimitBucketStore(db, tableName),
        now,
        random,
      }),
  );
  const label = `rig-${tableName}`;
  recorder.label = label;
  const calls = () => recorder.calls.filter((call) => call.label === label);
  const writes = () => calls().filter((call) => call.operation === "UpdateItem").length;
  const bucket = async (keyId: string) => {
    const item = await new Table(store.db, tableName).get(
      keys.rateLimitBucket(keyId),
      Date.now() + 5000,
    );
    return item && num(item, "tat");
  };
  return { clock, limiters, calls, writes, bucket, deadline: () => clock.t + 10_000 };
}

describe("a key is admitted up to its burst, then refused with Retry-After", () => {
  it("admits the burst at once, refuses the next, and says when to come back", async () => {
    const { limiters, deadline } = await rig();
    const limiter = nth(limiters, 0);
    const limit = limitOf("10/s", 20);
    const answers = [];
    for (let i = 0; i < 21; i++) answers.push(await limiter.admit("key_a", limit, deadline()));
    expect(answers.slice(0, 20).every((a) => a.admitted)).toBe(true);
    expect(answers[20]).toMatchObject({ admitted: false, remaining: 0 });
    const retryAfter = answers[20]?.retryAfterSeconds ?? 0;
    expect(retryAfter).toBeGreaterThanOrEqual(1);
    expect(Number.isInteger(retryAfter)).toBe(true);
    expect(answers[0]?.remaining).toBe(19);
  });
});

describe("a container that knows the bucket is empty refuses without a store call", () => {
  it("asks the store again only once the bucket can give a lease", async () => {
    // The refused container asks again half way through its spread (next token + 500 ms).
    const { clock, limiters, calls, deadline } = await rig(1, () => 0.5);
    const limiter = nth(limiters, 0);
    const limit = limitOf("10/s", 20);
    for (let i = 0; i < 20; i++) await limiter.admit("key_b", limit, deadline());
    expect((await limiter.admit("key_b", limit, deadline())).admitted).toBe(false);
    const asked = calls().length;
    // For 250 ms it admits only what its last lease holds for then (at 10/s, at most 3), and
    // never asks the store.
    let admitted = 0;
    for (let i = 0; i < 50; i++) {
      clock.t += 5;
      if ((await limiter.admit("key_b", limit, deadline())).admitted) admitted += 1;
    }
    expect(admitted).toBeLessThanOrEqual(3);
    expect(calls().length).toBe(asked);
    clock.t += 3000; // past the moment it computed: the bucket holds two leases again
    expect((await limiter.admit("key_b", limit, deadline())).admitted).toBe(true);
    expect(calls().length).toBeGreaterThan(asked);
  });
});

describe("a refused request writes nothing", () => {
  it("leaves the bucket as it was", async () => {
    const { limiters, bucket, deadline } = await rig(2);
    const limit = limitOf("10/s", 8);
    const [first, second] = [nth(limiters, 0), nth(limiters, 1)];
    for (let i = 0; i < 8; i++) await first.admit("key_c", limit, deadline());
    const before = await bucket("key_c");
    // The second container has never looked: its lease is refused by the condition.
    expect((await second.admit("key_c", limit, deadline())).admitted).toBe(false);
    expect(await bucket("key_c")).toBe(before);
  });
});

describe("containers share one bucket: admitted within the contract's bounds", () => {
  it.each([
    ["50/s", 100, 3],
    ["50/s", 100, 8],
    ["200/s", 400, 3],
  ] as const)(
    "%s burst %i across %i containers flooding for 30 s, at most 0.1 writes a request at 50/s and above",
    async (rate, burst, containers) => {
      const { clock, limiters, writes, deadline } = await rig(containers);
      const limit = limitOf(rate, burst);
      const seconds = 30;
      const end = clock.t + seconds * 1000;
      let admitted = 0;
      // Every container gets a request every 2 ms: far more than the limit.
      while (clock.t < end) {
        for (const limiter of limiters) {
          if ((await limiter.admit("key_d", limit, deadline())).admitted) admitted += 1;
        }
        clock.t += 2;
      }
      const expected = limit.perSecond * seconds;
      expect(admitted).toBeGreaterThanOrEqual(0.9 * expected);
      expect(admitted).toBeLessThanOrEqual(1.1 * (expected + burst));
      expect(writes() / admitted).toBeLessThanOrEqual(0.1);
    },
  );
});

describe("leases are sized from the key's rate", () => {
  it.each([
    ["1/min", 5, 1],
    ["10/s", 20, 5],
    ["50/s", 100, 25],
    ["50/s", 40, 20],
    ["1000/s", 2000, 500],
  ] as const)("%s burst %i: %i tokens", (rate, burst, size) => {
    expect(leaseSize(limitOf(rate, burst))).toBe(size);
  });
});

describe("a limit changed by the operator applies at the next request", () => {
  it("a raised limit admits at once: the bucket's debt is kept in tokens, not in time", async () => {
    const { limiters, deadline } = await rig(2);
    const [first, second] = [nth(limiters, 0), nth(limiters, 1)];
    const old = limitOf("1/min", 5);
    for (let i = 0; i < 5; i++) await first.admit("key_e", old, deadline());
    expect((await first.admit("key_e", old, deadline())).admitted).toBe(false);
    expect((await second.admit("key_e", old, deadline())).admitted).toBe(false);
    const raised = limitOf("100/s", 200);
    expect((await first.admit("key_e", raised, deadline())).admitted).toBe(true);
    expect((await second.admit("key_e", raised, deadline())).admitted).toBe(true);
  });

  it("a lowered limit refuses once the new burst is used", async () => {
    const { limiters, deadline } = await rig();
    const limiter = nth(limiters, 0);
    for (let i = 0; i < 3; i++) await limiter.admit("key_g", limitOf("100/s", 200), deadline());
    const lowered = limitOf("1/min", 2);
    const answers = [];
    for (let i = 0; i < 60; i++)
      answers.push((await limiter.admit("key_g", lowered, deadline())).admitted);
    // Tokens already leased under the old limit may still be spent, then the new one holds.
    expect(answers.filter(Boolean).length).toBeLessThanOrEqual(50 + 2);
    expect(answers.at(-1)).toBe(false);
  });
});

describe("fail open: a bucket out of reach admits, and the store is left alone for a second", () => {
  it("admits with failedOpen and the cause, then without store calls", async () => {
    const tableName = await store.newTable();
    const clock = { t: Date.now() };
    const now = () => clock.t;
    // Nothing listens here: every attempt fails at once, until the limiter's budget is spent.
    const nowhere = new DynamoDb({
      region: "local",
      endpoint: "http://127.0.0.1:9",
      credentials: () => Promise.resolve({ accessKeyId: "local", secretAccessKey: "local" }),
      baseDelayMs: 5,
    });
    try {
      const limiter = new RateLimiter({
        buckets: new RateLimitBucketStore(nowhere, tableName),
        now,
        budgetMs: 100,
      });
      const limit = limitOf("1/s", 1);
      const first = await limiter.admit("key_f", limit, clock.t + 10_000);
      expect(first).toMatchObject({ admitted: true, failedOpen: true });
      expect(first.cause).toBeInstanceOf(Error);
      clock.t += 500;
      const second = await limiter.admit("key_f", limit, clock.t + 10_000);
      expect(second).toMatchObject({ admitted: true, failedOpen: true, cause: undefined });
    } finally {
      nowhere.close();
    }
  });
});
