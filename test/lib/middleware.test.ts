import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { jsonDepth } from "../../lib/http/jsonBody.ts";
import { deadlineOf } from "../../lib/middleware.ts";

describe("JSON nesting depth is measured outside strings", () => {
  it.each([
    ['{"name":"dog"}', 1],
    ["[]", 1],
    ['{"a":[{"b":[]}]}', 4],
    ['{"name":"[[[[{{{{"}', 1],
    ['{"name":"\\"[["}', 1],
    ["42", 0],
  ])("%s → %i", (text, depth) => {
    expect(jsonDepth(text)).toBe(depth);
  });

  it("agrees with the structure of any JSON value", () => {
    const depthOf = (value: unknown): number =>
      value !== null && typeof value === "object"
        ? 1 + Math.max(0, ...Object.values(value).map(depthOf))
        : 0;
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(jsonDepth(JSON.stringify(value))).toBe(depthOf(value));
      }),
      { numRuns: 1000 },
    );
  });
});

describe("a request's deadline keeps a margin before the Lambda timeout", () => {
  it("is the remaining time less 300 ms", () => {
    const before = Date.now();
    const deadline = deadlineOf({ getRemainingTimeInMillis: () => 10_000 });
    expect(deadline - before).toBeGreaterThanOrEqual(9_700 - 5);
    expect(deadline - before).toBeLessThanOrEqual(9_700 + 50);
  });

  it("never lies in the past, and defaults to 10 s without a Lambda context", () => {
    expect(deadlineOf({ getRemainingTimeInMillis: () => 100 })).toBeGreaterThanOrEqual(
      Date.now() - 1,
    );
    expect(deadlineOf({}) - Date.now()).toBeGreaterThan(9_000);
  });
});
