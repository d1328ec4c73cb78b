import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { coldReadSplit, mapLimited, splitIds } from "../../../lib/categoryList/ranges.ts";

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

describe("parallel work is bounded and keeps its order", () => {
  it("never runs more than the limit at once", async () => {
    let running = 0;
    let peak = 0;
    const results = await mapLimited([5, 1, 4, 2, 3], 2, async (n) => {
      peak = Math.max(peak, ++running);
      await new Promise((done) => setTimeout(done, n));
      running--;
      return n * 10;
    });
    expect(results).toEqual([50, 10, 40, 20, 30]);
    expect(peak).toBe(2);
  });
});
