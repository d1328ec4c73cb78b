/**
 * A key's token bucket in the embedded store (lib/repositories/rateLimitBuckets.ts): GCRA's `tat`
 * with the interval it was counted in, taken in whole blocks by one conditional UpdateItem in the
 * form the caller's last look calls for (idle, draining, rescaled), a refusal that writes nothing,
 * and a strongly consistent read.
 */
import { describe, expect, it } from "vitest";
import { DynamoDb } from "../../../lib/dynamodb.ts";
import type { Take } from "../../../lib/repositories/rateLimitBuckets.ts";
import { RateLimitBucketStore, rescaled } from "../../../lib/repositories/rateLimitBuckets.ts";
import { DynamoDbError } from "../../../lib/table/errors.ts";
import { num } from "../../../lib/table/item.ts";
import { keys } from "../../../lib/table/schema.ts";
import { Table } from "../../../lib/table/table.ts";
import { soon, useEmbeddedDynamo } from "../../support/dynamo.ts";

const store = useEmbeddedDynamo();
const now = 1_800_000_000_000;

/** A fresh table: its bucket store, and the bucket item as stored (tat, interval, ttl). */
async function rig() {
  const tableName = await store.newTable();
  const table = new Table(store.db, tableName);
  const buckets = new RateLimitBucketStore(store.db, tableName);
  const item = async (keyId: string) => {
    const stored = await table.get(keys.rateLimitBucket(keyId), soon());
    return (
      stored && {
        tat: num(stored, "tat"),
        interval: num(stored, "interval"),
        ttl: num(stored, "ttl"),
      }
    );
  };
  /** A bucket as another container left it. */
  const seed = (keyId: string, tat: number, interval: number) =>
    table.put(keys.rateLimitBucket(keyId), { tat, interval, ttl: 0 }, soon());
  return { buckets, item, seed, tableName };
}

/** A lease of `tokens` of a 10/s (100 ms) bucket of 20, at `now`, from what was last seen. */
function lease(keyId: string, expected: Take["expected"], extra: Partial<Take> = {}): Take {
  return { keyId, tokens: 5, intervalMs: 100, burst: 20, expected, now, ...extra };
}

type At = readonly [number, number];
/** A bucket state: tat `now + dt`, counted in `intervalMs`. */
const state = ([dt, intervalMs]: At) => ({ tat: now + dt, intervalMs });
/** A lease at 100/s of a bucket of 200, after the key's rate changed from 1/min. */
const c = { tokens: 5, intervalMs: 10, burst: 200 };

/**
 * One conditional write per lease, in the form the caller's last look (`seen`: "read", the bucket
 * read just before, or what it saw earlier) calls for: made, with the new tat in the interval it
 * was counted in, or refused with the bucket it met, writing nothing.
 */
describe("a lease takes whole blocks from the bucket as last seen, or is refused and writes nothing", () => {
  it.each<[string, At | null, "read" | At | null, Partial<Take>, boolean, At]>([
    ["no bucket is full: tat = now + tokens × interval", null, null, {}, true, [500, 100]],
    [
      "a tat passed: replaced by now + cost (idle form)",
      [-1000, 100],
      "read",
      {},
      true,
      [500, 100],
    ],
    ["draining: the cost is added to tat", [300, 100], "read", {}, true, [800, 100]],
    ["a tat of exactly now: full, taken draining", [0, 100], "read", {}, true, [500, 100]],
    // Full at now + 20 × 100 ms: one token left while tat is one interval short of that.
    ["one token left: the whole block is taken", [1900, 100], "read", {}, true, [2400, 100]],
    ["less than one token left: refused", [1901, 100], "read", {}, false, [1901, 100]],
    ["seen absent, leased by another since: refused", [300, 100], null, {}, false, [300, 100]],
    ["seen idle, leased by another since: refused", [300, 100], [-50, 100], {}, false, [300, 100]],
    ["seen in another interval: refused", [300, 50], [300, 100], {}, false, [300, 50]],
    // One token owed at 1/min is one owed at 100/s: the debt is kept in tokens.
    ["a changed rate: rescaled, in the new interval", [60_000, 60_000], "read", c, true, [60, 10]],
    [
      "a changed rate, seen stale: refused",
      [120_000, 60_000],
      [60_000, 60_000],
      c,
      false,
      [120_000, 60_000],
    ],
    [
      "rescaled by another already: refused",
      [60_000, 10],
      [60_000, 60_000],
      c,
      false,
      [60_000, 10],
    ],
  ])("%s", async (_, stored, seenAs, extra, taken, met) => {
    const { buckets, item, seed } = await rig();
    if (stored) await seed("k", now + stored[0], stored[1]);
    const before = await item("k");
    let seen = seenAs === null || seenAs === "read" ? undefined : state(seenAs);
    if (seenAs === "read") {
      seen = await buckets.read("k", extra.intervalMs ?? 100, soon());
      expect(seen).toEqual(stored && state(stored));
    }
    expect(await buckets.take(lease("k", seen, extra), soon())).toEqual({
      taken,
      state: state(met),
    });
    const after = taken ? { tat: now + met[0], interval: met[1] } : before;
    expect(await item("k")).toMatchObject(after ?? {});
  });

  it("a bucket read before it exists: tat 0 (full) in the interval asked", async () => {
    const { buckets } = await rig();
    expect(await buckets.read("k", 250, soon())).toEqual({ tat: 0, intervalMs: 250 });
  });
});

describe("a changed rate keeps the bucket's debt in tokens, counted in the new interval", () => {
  it("rescaled: the same tokens owed from now, in the new interval", () => {
    // One token owed at 1/min (60 s) is one token owed at 100/s (10 ms).
    expect(rescaled({ tat: now + 60_000, intervalMs: 60_000 }, 10, now)).toBe(now + 10);
    expect(rescaled({ tat: now + 30, intervalMs: 10 }, 60_000, now)).toBe(now + 180_000);
    // Three decimals at most: exact in DynamoDB's numbers (1/3 of a 1 s interval).
    expect(rescaled({ tat: now + 1000, intervalMs: 3000 }, 1000, now)).toBe(now + 333.333);
  });

  it("the same interval, or a tat already passed (a full bucket), is left as it is", () => {
    expect(rescaled({ tat: now + 500, intervalMs: 100 }, 100, now)).toBe(now + 500);
    expect(rescaled({ tat: now - 500, intervalMs: 100 }, 10, now)).toBe(now - 500);
  });
});

describe("milliseconds to three decimals: exact in DynamoDB's decimal numbers", () => {
  it("a third of a second per token: tat stored and answered to three decimals", async () => {
    const { buckets, item } = await rig();
    const interval = 1000 / 3;
    const result = await buckets.take(lease("k", undefined, { intervalMs: interval }), soon());
    expect(result.state.tat).toBe(now + 1666.667);
    expect((await item("k"))?.tat).toBe(now + 1666.667);
  });
});

describe("the bucket item is kept an hour after it could be full again, then expires (ttl)", () => {
  it("ttl: an hour after the latest moment this lease can leave the bucket full again", async () => {
    const { buckets, item, seed } = await rig();
    // 1 token a second, burst 20: one token left, a lease of 5 takes the bucket to 24 s ahead.
    await seed("k", now + 19_000, 1000);
    const seen = await buckets.read("k", 1000, soon());
    const take = lease("k", seen, { tokens: 5, intervalMs: 1000, burst: 20 });
    const result = await buckets.take(take, soon());
    expect(result).toMatchObject({ taken: true, state: { tat: now + 24_000 } });
    const ttl = (await item("k"))?.ttl ?? 0;
    expect(ttl * 1000).toBeGreaterThanOrEqual(now + 24_000 + 3_600_000);
    // now + burst × interval + the lease: 25 s, rounded up to the second.
    expect(ttl).toBe(Math.ceil((now + 25_000) / 1000) + 3600);
  });

  it("an idle bucket's lease: the same bound", async () => {
    const { buckets, item } = await rig();
    await buckets.take(lease("k", undefined, { now: now + 1 }), soon());
    // now + 1 + 20 × 100 ms + 5 × 100 ms, rounded up to the second.
    expect((await item("k"))?.ttl).toBe(Math.ceil((now + 2501) / 1000) + 3600);
  });
});

describe("a store fault that is not a failed condition reaches the caller", () => {
  it("the lease throws the store's error, and reads nothing to answer it", async () => {
    const { tableName } = await rig();
    const operations: string[] = [];
    class Refusing extends DynamoDb {
      override call<Output>(operation: string, input: object, deadline: number): Promise<Output> {
        operations.push(operation);
        if (operation === "UpdateItem") {
          return Promise.reject(new DynamoDbError("ValidationException", 400, "refused"));
        }
        return super.call<Output>(operation, input, deadline);
      }
    }
    const db = new Refusing({
      region: "local",
      endpoint: store.endpoint,
      credentials: () => Promise.resolve({ accessKeyId: "local", secretAccessKey: "local" }),
    });
    try {
      const buckets = new RateLimitBucketStore(db, tableName);
      await expect(buckets.take(lease("k", undefined), soon())).rejects.toMatchObject({
        type: "ValidationException",
      });
      expect(operations).toEqual(["UpdateItem"]);
    } finally {
      db.close();
    }
  });
});
