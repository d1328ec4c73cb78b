/**
 * The single-table design's key layout (lib/table/schema.ts): what pk and sk hold for each item
 * type, as its table says, and the orders the sort keys must keep.
 */
import { describe, expect, it } from "vitest";
import {
  categorySortKey,
  keys,
  partitions,
  withdrawalRecordMs,
  withdrawalsFrom,
} from "../../../lib/table/schema.ts";

describe("each item type's keys are as the schema's table says", () => {
  it("keys withdrawals beside the counter: cat#withdrawn#, 15-digit ms, #, id", () => {
    expect(keys.withdrawal(1_764_000_000_123, 42)).toEqual({
      pk: "COUNTER",
      sk: "cat#withdrawn#001764000000123#42",
    });
  });

  it("keys key events in one partition by time, key id and a unique suffix", () => {
    expect(keys.keyEvent("2026-11-22T12:00:00.000Z", "k1", "u1")).toEqual({
      pk: "KEYEVENT",
      sk: "2026-11-22T12:00:00.000Z#k1#u1",
    });
    expect(partitions.keyEvent).toBe("KEYEVENT");
  });

  it("keys a rate limit bucket in a partition of its key's own", () => {
    expect(keys.rateLimitBucket("k1")).toEqual({ pk: "RATELIMIT#k1", sk: "bucket" });
    expect(partitions.rateLimit("k1")).toBe("RATELIMIT#k1");
  });

  it("keys API keys by hash in APIKEY, and the counter in COUNTER", () => {
    expect(partitions.apiKey).toBe("APIKEY");
    expect(partitions.counter).toBe("COUNTER");
    expect(partitions.category).toBe("CATEGORY");
  });
});

describe("sort keys keep id and time order as strings (zero-padded)", () => {
  it("pads category ids to 16 digits, so string order is id order", () => {
    expect(categorySortKey(1)).toBe("0000000000000001");
    expect(categorySortKey(Number.MAX_SAFE_INTEGER)).toBe("9007199254740991");
    expect(categorySortKey(9) < categorySortKey(10)).toBe(true);
  });

  it("pads withdrawal times to 15 digits of whole ms, never below zero", () => {
    expect(withdrawalsFrom(5.9)).toBe("cat#withdrawn#000000000000005");
    expect(withdrawalsFrom(-3)).toBe("cat#withdrawn#000000000000000");
    expect(withdrawalsFrom(999) < withdrawalsFrom(1000)).toBe(true);
  });

  it("sorts withdrawals just below the counter, so one Query from a moment reads both", () => {
    const latest = keys.withdrawal(999_999_999_999_999, Number.MAX_SAFE_INTEGER).sk;
    expect(withdrawalsFrom(0) < latest).toBe(true);
    expect(latest < keys.categoryCounter.sk).toBe(true);
  });
});

describe("withdrawal records are kept a day (their TTL)", () => {
  it("is 24 hours in ms", () => {
    expect(withdrawalRecordMs).toBe(86_400_000);
  });
});
