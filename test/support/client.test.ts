import { describe, expect, it } from "vitest";
import { inParallel } from "./client.ts";

describe("parallel work is bounded and keeps its order", () => {
  it("answers nothing for no inputs, and runs every input when the limit exceeds them", async () => {
    expect(await inParallel([], 4, (n: number) => Promise.resolve(n))).toEqual([]);
    expect(await inParallel([1, 2], 8, (n) => Promise.resolve(n + 1))).toEqual([2, 3]);
  });

  it("never runs more than the limit at once", async () => {
    let running = 0;
    let peak = 0;
    const results = await inParallel([5, 1, 4, 2, 3], 2, async (n) => {
      peak = Math.max(peak, ++running);
      await new Promise((done) => setTimeout(done, n));
      running--;
      return n * 10;
    });
    expect(results).toEqual([50, 10, 40, 20, 30]);
    expect(peak).toBe(2);
  });
});
