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

describe("no bucket yet is a full bucket: the first lease starts from now", () => {
  it("tat = now + the lease's tokens × interval, with the interval it was counted in", async () => {
    const { buckets, item } = await rig();
    expect(await buckets.take(lease("k", undefined), soon())).toEqual({
      taken: true,
      state: { tat: now + 500, intervalMs: 100 },
    });
    expect(await item("k")).toMatchObject({ tat: now + 500, interval: 100 });
  });

  it("a bucket read before it exists: tat 0 (full) in the interval asked", async () => {
    const { buckets } = await rig();
    expect(await buckets.read("k", 250, soon())).toEqual({ tat: 0, intervalMs: 250 });
  });
});

describe("a bucket whose tat has passed is full again: the lease starts from now (idle form)", () => {
  it("an old tat is replaced by now + cost, not added to", async () => {
    const { buckets, item, seed } = await rig();
    await seed("k", now - 1000, 100);
    const seen = await buckets.read("k", 100, soon());
    expect(seen).toEqual({ tat: now - 1000, intervalMs: 100 });
    expect(await buckets.take(lease("k", seen), soon())).toEqual({
      taken: true,
      state: { tat: now + 500, intervalMs: 100 },
    });
    expect((await item("k"))?.tat).toBe(now + 500);
  });
});

describe("a draining bucket: the lease adds its cost to tat while one token is left", () => {
  it("tat moves the lease's tokens × interval later", async () => {
    const { buckets, item, seed } = await rig();
    await seed("k", now + 300, 100);
    const seen = await buckets.read("k", 100, soon());
    expect(await buckets.take(lease("k", seen), soon())).toEqual({
      taken: true,
      state: { tat: now + 800, intervalMs: 100 },
    });
    expect((await item("k"))?.tat).toBe(now + 800);
  });

  it("a tat of exactly now is a full bucket, taken in the draining form", async () => {
    const { buckets, item, seed } = await rig();
    await seed("k", now, 100);
    const seen = await buckets.read("k", 100, soon());
    expect(await buckets.take(lease("k", seen), soon())).toMatchObject({
      taken: true,
      state: { tat: now + 500 },
    });
    expect((await item("k"))?.tat).toBe(now + 500);
  });

  it("with exactly one token left the whole block is taken (the rest are the next tokens)", async () => {
    const { buckets, item, seed } = await rig();
    // Full at now + 20 × 100 ms: one token left while tat is one interval short of that.
    await seed("k", now + 1900, 100);
    const seen = await buckets.read("k", 100, soon());
    expect(await buckets.take(lease("k", seen), soon())).toMatchObject({
      taken: true,
      state: { tat: now + 2400 },
    });
    expect((await item("k"))?.tat).toBe(now + 2400);
  });

  it("with less than one token left the lease is refused, writes nothing, and says what it met", async () => {
    const { buckets, item, seed } = await rig();
    await seed("k", now + 1901, 100);
    const seen = await buckets.read("k", 100, soon());
    const before = await item("k");
    expect(await buckets.take(lease("k", seen), soon())).toEqual({
      taken: false,
      state: { tat: now + 1901, intervalMs: 100 },
    });
    expect(await item("k")).toEqual(before);
  });
});

describe("a wrong guess of the bucket's state is a refusal that writes nothing", () => {
  it("seen as absent, but another container leased since: refused, with the bucket it met", async () => {
    const { buckets, item, seed } = await rig();
    await seed("k", now + 300, 100);
    const before = await item("k");
    expect(await buckets.take(lease("k", undefined), soon())).toEqual({
      taken: false,
      state: { tat: now + 300, intervalMs: 100 },
    });
    expect(await item("k")).toEqual(before);
  });

  it("seen idle, but another container leased since: refused", async () => {
    const { buckets, item, seed } = await rig();
    await seed("k", now + 300, 100);
    const before = await item("k");
    const stale = { tat: now - 50, intervalMs: 100 };
    expect(await buckets.take(lease("k", stale), soon())).toEqual({
      taken: false,
      state: { tat: now + 300, intervalMs: 100 },
    });
    expect(await item("k")).toEqual(before);
  });

  it("seen draining in this interval, but the bucket is counted in another: refused", async () => {
    const { buckets, item, seed } = await rig();
    await seed("k", now + 300, 50);
    const before = await item("k");
    const guess = { tat: now + 300, intervalMs: 100 };
    expect(await buckets.take(lease("k", guess), soon())).toEqual({
      taken: false,
      state: { tat: now + 300, intervalMs: 50 },
    });
    expect(await item("k")).toEqual(before);
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

  it("a lease after the change: from the rescaled tat, stored in the new interval", async () => {
    const { buckets, item, seed } = await rig();
    await seed("k", now + 60_000, 60_000);
    const seen = await buckets.read("k", 10, soon());
    expect(seen).toEqual({ tat: now + 60_000, intervalMs: 60_000 });
    const take = lease("k", seen, { tokens: 5, intervalMs: 10, burst: 200 });
    expect(await buckets.take(take, soon())).toEqual({
      taken: true,
      state: { tat: now + 60, intervalMs: 10 },
    });
    expect(await item("k")).toMatchObject({ tat: now + 60, interval: 10 });
  });

  it("a rescaled lease is refused when the bucket is no longer what was seen, writing nothing", async () => {
    const { buckets, item, seed } = await rig();
    await seed("k", now + 120_000, 60_000);
    const before = await item("k");
    const stale = { tat: now + 60_000, intervalMs: 60_000 };
    const take = lease("k", stale, { tokens: 5, intervalMs: 10, burst: 200 });
    expect(await buckets.take(take, soon())).toEqual({
      taken: false,
      state: { tat: now + 120_000, intervalMs: 60_000 },
    });
    expect(await item("k")).toEqual(before);
  });

  it("another container already rescaled it (same tat, new interval): refused", async () => {
    const { buckets, seed } = await rig();
    await seed("k", now + 60_000, 10);
    const stale = { tat: now + 60_000, intervalMs: 60_000 };
    const take = lease("k", stale, { tokens: 5, intervalMs: 10, burst: 200 });
    expect(await buckets.take(take, soon())).toMatchObject({ taken: false });
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
