/**
 * The hand-written serialisation of RateLimit-Policy and RateLimit (lib/rateLimit/headers.ts),
 * checked against a Structured Fields library (`structured-headers`, RFC 9651): every field it
 * writes parses, to exactly the values meant, and serialises back to the same text.
 */
import fc from "fast-check";
import { parseList, serializeList } from "structured-headers";
import { describe, expect, it } from "vitest";
import { policyField, rateLimitField } from "../../../lib/rateLimit/headers.ts";
import { parseRateLimit } from "../../../lib/rateLimit/policy.ts";

function parsed(field: string): { name: unknown; params: Record<string, unknown> } {
  const list = parseList(field);
  expect(list).toHaveLength(1);
  const [value, params] = list[0] as [unknown, Map<string, unknown>];
  // The library writes the canonical form: the hand-written one must be it.
  expect(serializeList(list)).toBe(field);
  return { name: value, params: Object.fromEntries(params) };
}

describe("RateLimit-Policy: the key's rate as a quota per window, q/w = the rate as set", () => {
  it.each([
    ["2/s", 3, { q: 2, w: 1 }],
    ["50/s", 100, { q: 50, w: 1 }],
    ["1/min", 5, { q: 1, w: 60 }],
    ["600/min", 10, { q: 600, w: 60 }],
    ["7/min", 10, { q: 7, w: 60 }],
  ] as const)("%s burst %i", (rate, burst, expected) => {
    const limit = parseRateLimit(rate, burst);
    if (typeof limit === "string") throw new Error(limit);
    expect(parsed(policyField(limit))).toEqual({ name: "default", params: expected });
  });

  it("any rate and burst an operator may set is a valid field", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 999_999_999 }),
        fc.constantFrom("s", "min"),
        fc.integer({ min: 1, max: 1_000_000_000 }),
        (count, unit, burst) => {
          const limit = parseRateLimit(`${count}/${unit}`, burst);
          if (typeof limit === "string") throw new Error(limit);
          const { params } = parsed(policyField(limit));
          expect(params).toEqual({ q: count, w: unit === "s" ? 1 : 60 });
        },
      ),
    );
  });
});

describe("RateLimit: what is left and when the bucket is full again", () => {
  it("any remaining count and reset time is a valid field, negatives and fractions as the draft allows", () => {
    fc.assert(
      fc.property(
        fc.double({ min: -10, max: 1e16, noNaN: true }),
        fc.double({ min: -5, max: 1e7, noNaN: true }),
        (r, t) => {
          const { name, params } = parsed(rateLimitField(r, t));
          expect(name).toBe("default");
          for (const value of Object.values(params)) {
            expect(Number.isInteger(value)).toBe(true);
            expect(value as number).toBeGreaterThanOrEqual(0);
            expect(value as number).toBeLessThanOrEqual(999_999_999_999_999);
          }
        },
      ),
    );
    expect(rateLimitField(42, 1.2)).toBe('"default";r=42;t=2');
  });

  it("one token left is r=1; a fraction of a second to reset is t=1 (rounded up)", () => {
    expect(rateLimitField(1, 0.4)).toBe('"default";r=1;t=1');
    expect(rateLimitField(0.9, 0)).toBe('"default";r=0;t=0');
  });

  it.each([Number.NaN, Infinity, -Infinity])(
    "%s, which no count should be, still gives a valid field of non-negative Integers",
    (value) => {
      for (const field of [rateLimitField(value, 3), rateLimitField(3, value)]) {
        const { params } = parsed(field);
        for (const n of Object.values(params)) {
          expect(Number.isInteger(n) && (n as number) >= 0).toBe(true);
        }
      }
    },
  );

  it("counts past 15 digits are clamped to the largest Integer (RFC 9651 §4.1.4)", () => {
    expect(rateLimitField(1e20, 1e20)).toBe('"default";r=999999999999999;t=999999999999999');
  });
});
