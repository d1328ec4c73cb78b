import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { coldReadSplit, splitIds } from "../../../lib/categoryList/ranges.ts";

describe("a cold read's id range is cut into contiguous parallel parts", () => {
  it("covers [low, high] exactly, in order, without overlap", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 200_000 }),
        fc.integer({ min: 0, max: 200_000 }),
        (low, count) => {
          const high = low + count - 1;
          const parts = splitIds(low, high, coldReadSplit);
          const covered = parts.reduce((sum, [a, b]) => sum + (b - a + 1), 0);
          expect(covered).toBe(count);
          if (count > 0) expect(parts[0]?.[0]).toBe(low);
          if (count > 0) expect(parts.at(-1)?.[1]).toBe(high);
          for (let i = 1; i < parts.length; i++)
            expect(parts[i]?.[0]).toBe((parts[i - 1]?.[1] ?? 0) + 1);
          expect(parts.length).toBeLessThanOrEqual(coldReadSplit.maxParts);
        },
      ),
    );
  });

  it("reads a small store in one Query and 50,000 ids in one wave of 16", () => {
    expect(splitIds(1, 100, coldReadSplit)).toEqual([[1, 100]]);
    expect(splitIds(1, 50_000, coldReadSplit)).toHaveLength(16);
    expect(splitIds(1, 0, coldReadSplit)).toEqual([]);
  });
});

describe("parts are near-equal, no more than maxParts, none smaller than minIds", () => {
  it("cuts ten ids into three parts of at most four", () => {
    expect(splitIds(1, 10, { maxParts: 3, minIds: 2 })).toEqual([
      [1, 4],
      [5, 8],
      [9, 10],
    ]);
  });

  it("makes as many parts as minIds allows when that is fewer than maxParts", () => {
    expect(splitIds(11, 20, { maxParts: 16, minIds: 5 })).toEqual([
      [11, 15],
      [16, 20],
    ]);
    expect(splitIds(1, 5, { maxParts: 16, minIds: 2 })).toEqual([
      [1, 3],
      [4, 5],
    ]);
  });

  it("reads fewer ids than minIds, or a single id, in one part", () => {
    expect(splitIds(1, 3, { maxParts: 4, minIds: 5 })).toEqual([[1, 3]]);
    expect(splitIds(7, 7, coldReadSplit)).toEqual([[7, 7]]);
  });
});
