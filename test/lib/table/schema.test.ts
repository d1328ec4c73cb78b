/**
 * The single-table design's key layout (lib/table/schema.ts): what pk and sk hold for each item
 * type, as its table says, and the orders the sort keys must keep, for any resource's name.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  idSortKey,
  isWithdrawalOf,
  keys,
  listVersionRange,
  partitions,
  withdrawalRecordMs,
} from "../../../lib/table/schema.ts";

describe("each item type's keys are as the schema's table says", () => {
  it("keys a resource's items by its name in capitals, its counter by its name", () => {
    expect(keys.resource("category", 7)).toEqual({ pk: "CATEGORY", sk: "0000000000000007" });
    expect(keys.counter("category")).toEqual({ pk: "COUNTER", sk: "category" });
    expect(keys.resource("tag", 1)).toEqual({ pk: "TAG", sk: "0000000000000001" });
    expect(partitions.resource("tag")).toBe("TAG");
  });

  it("keys withdrawals beside the counter: name, #withdrawn#, 15 digits counting down from 10^15 - 1, #, id", () => {
    expect(keys.withdrawal("category", 1_764_000_000_123, 42)).toEqual({
      pk: "COUNTER",
      sk: "category#withdrawn#998235999999876#42",
    });
    expect(keys.withdrawal("tag", 5.9, 1).sk).toBe("tag#withdrawn#999999999999994#1");
    expect(keys.withdrawal("tag", -3, 1).sk).toBe("tag#withdrawn#999999999999999#1");
    expect(keys.withdrawal("tag", 2e15, 1).sk).toBe("tag#withdrawn#000000000000000#1");
  });

  it("keys an idempotency record by API key, then operation and Idempotency-Key", () => {
    expect(keys.idempotency("ab12", "createCategory", "retry-1")).toEqual({
      pk: "IDEMPOTENCY#ab12",
      sk: "createCategory#retry-1",
    });
    // One Idempotency-Key sent to two operations names two records.
    expect(keys.idempotency("ab12", "createTag", "k").sk).not.toBe(
      keys.idempotency("ab12", "createCategory", "k").sk,
    );
    expect(partitions.idempotency("ab12")).toBe("IDEMPOTENCY#ab12");
    expect(keys.legacyIdempotency("ab12", "retry-1")).toEqual({
      pk: "IDEMPOTENCY#ab12",
      sk: "retry-1",
    });
  });

  it("refuses an operation name that could run into the Idempotency-Key, and a resource name that could interleave", () => {
    for (const operation of ["create#Tag", "", "create tag"]) {
      expect(() => keys.idempotency("ab12", operation, "k"), operation).toThrow(/letters only/);
    }
    for (const name of ["Tag", "tag#", "tags1", "", "t-g"]) {
      expect(() => keys.counter(name), name).toThrow(/lower-case letters only/);
      expect(() => keys.resource(name, 1), name).toThrow(/lower-case letters only/);
      expect(() => keys.withdrawal(name, 0, 1), name).toThrow(/lower-case letters only/);
      expect(() => listVersionRange(name, 0), name).toThrow(/lower-case letters only/);
    }
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
    expect(keys.apiKey("ab12")).toEqual({ pk: "APIKEY", sk: "ab12" });
    expect(partitions.apiKey).toBe("APIKEY");
    expect(partitions.counter).toBe("COUNTER");
  });
});

describe("sort keys keep id order as strings (zero-padded)", () => {
  it("pads ids to 16 digits, so string order is id order", () => {
    expect(idSortKey(1)).toBe("0000000000000001");
    expect(idSortKey(Number.MAX_SAFE_INTEGER)).toBe("9007199254740991");
    expect(idSortKey(9) < idSortKey(10)).toBe(true);
  });
});

/** DynamoDB's order of string sort keys: by UTF-8 bytes, which is code unit order for ASCII. */
const inRange = (sk: string, [low, high]: readonly [string, string]): boolean =>
  low <= sk && sk <= high;

/** The old layout of categories' withdrawals, still read (lib/table/schema.ts). */
const legacyWithdrawal = (at: number, id: number): string =>
  `cat#withdrawn#${String(at).padStart(15, "0")}#${id}`;

const names = fc.stringMatching(/^[a-z]{1,10}$/);
/** Whole ms from 1970 to past 2100, and ids. */
const moment = fc.integer({ min: 0, max: 4_200_000_000_000 });
const id = fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER });

describe("a list's first read is the counter and the withdrawals since a moment, for any resource name", () => {
  it("reads exactly its counter and its withdrawals at or after `since`, whatever else the counter partition holds", () => {
    fc.assert(
      fc.property(
        fc.uniqueArray(names, { minLength: 1, maxLength: 6 }),
        fc.array(fc.tuple(fc.nat(5), moment, id), { maxLength: 30 }),
        moment,
        (resources, withdrawals, since) => {
          // "catalog" sorts between categories' old withdrawals and their counter.
          const all = [...new Set([...resources, "category", "catalog"])];
          // Every key the counter partition can hold: each name's counter and withdrawals,
          // categories' old withdrawals among them.
          const stored = [
            ...all.map((name) => ({ name, sk: keys.counter(name).sk, at: Infinity })),
            ...withdrawals.flatMap(([pick, at, withdrawn]) => {
              const name = all[pick % all.length] ?? "category";
              const current = { name, sk: keys.withdrawal(name, at, withdrawn).sk, at };
              const old = { name, sk: legacyWithdrawal(at, withdrawn), at };
              return name === "category" ? [current, old] : [current];
            }),
          ];
          for (const name of all) {
            const range = listVersionRange(name, since);
            const read = stored.filter(({ sk }) => inRange(sk, range));
            const wanted = stored.filter((item) => item.name === name && item.at >= since);
            const counterSk = keys.counter(name).sk;
            // What the list takes as its own: nothing of another resource's.
            const taken = read.filter(({ sk }) => sk === counterSk || isWithdrawalOf(name, sk));
            expect(taken.map(({ sk }) => sk).sort()).toEqual(wanted.map(({ sk }) => sk).sort());
            // And, outside categories' old layout, the range itself holds nothing else.
            if (name !== "category") expect(read).toEqual(taken);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it("takes a withdrawal recorded in the very millisecond the read starts from, not the one before", () => {
    const range = listVersionRange("tag", 1_000);
    expect(inRange(keys.withdrawal("tag", 1_000, Number.MAX_SAFE_INTEGER).sk, range)).toBe(true);
    expect(inRange(keys.withdrawal("tag", 999, 1).sk, range)).toBe(false);
    const legacy = listVersionRange("category", 1_000);
    expect(inRange(legacyWithdrawal(1_000, 1), legacy)).toBe(true);
    expect(inRange(legacyWithdrawal(999, 1), legacy)).toBe(false);
    // Whole ms: a read from part-way through a millisecond takes all of it.
    expect(inRange(keys.withdrawal("tag", 1_000, 1).sk, listVersionRange("tag", 1_000.5))).toBe(
      true,
    );
    expect(inRange(legacyWithdrawal(1_000, 1), listVersionRange("category", 1_000.5))).toBe(true);
  });

  it("tells a resource's withdrawals from its counter and from another's", () => {
    expect(isWithdrawalOf("tag", keys.withdrawal("tag", 5, 1).sk)).toBe(true);
    expect(isWithdrawalOf("tag", keys.counter("tag").sk)).toBe(false);
    expect(isWithdrawalOf("tag", keys.withdrawal("tags", 5, 1).sk)).toBe(false);
    expect(isWithdrawalOf("tag", legacyWithdrawal(5, 1))).toBe(false);
    expect(isWithdrawalOf("category", legacyWithdrawal(5, 1))).toBe(true);
    expect(isWithdrawalOf("category", keys.counter("category").sk)).toBe(false);
    expect(isWithdrawalOf("category", keys.counter("catalog").sk)).toBe(false);
    expect(isWithdrawalOf("category", keys.withdrawal("catalog", 5, 1).sk)).toBe(false);
  });
});

describe("withdrawal records are kept a day (their TTL)", () => {
  it("is 24 hours in ms", () => {
    expect(withdrawalRecordMs).toBe(86_400_000);
  });
});
