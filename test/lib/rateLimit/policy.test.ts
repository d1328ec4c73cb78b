/**
 * A key's rate limit as operators write it (lib/rateLimit/policy.ts): `--rate <n>/s` or `<n>/min`
 * and `--burst <n>` (contract, "Rate limits"), the token bucket it stands for, and how a container
 * leases from it.
 */
import { describe, expect, it } from "vitest";
import {
  describeRateLimit,
  intervalMs,
  leaseSize,
  parseRateLimit,
} from "../../../lib/rateLimit/policy.ts";
import { limitOf } from "../helpers.ts";

describe("a rate is <n>/s or <n>/min, kept as written", () => {
  it.each([
    ["50/s", 100, { rate: "50/s", perSecond: 50, burst: 100 }],
    ["600/min", 10, { rate: "600/min", perSecond: 10, burst: 10 }],
    ["1/min", 5, { rate: "1/min", perSecond: 1 / 60, burst: 5 }],
    ["1/s", 1, { rate: "1/s", perSecond: 1, burst: 1 }],
    ["999999999/s", 1_000_000_000, { rate: "999999999/s", perSecond: 999_999_999, burst: 1e9 }],
  ] as const)("%s burst %s", (rate, burst, expected) => {
    expect(parseRateLimit(rate, burst)).toEqual(expected);
  });

  it("the text around the rate and the burst is trimmed (an environment variable, a CLI argument)", () => {
    expect(parseRateLimit(" 50/s\n", " 100 ")).toEqual({ rate: "50/s", perSecond: 50, burst: 100 });
    expect(parseRateLimit("\t3/min ", "7")).toEqual({ rate: "3/min", perSecond: 3 / 60, burst: 7 });
  });

  it.each([
    "",
    "50",
    "50/",
    "/s",
    "0/s",
    "05/s",
    "-5/s",
    "1.5/s",
    "50/h",
    "50/sec",
    "50/S",
    "50 /s",
    "x50/s",
    "50/sx",
    "50/s/s",
    "50/mins",
    "1000000000/s",
  ])("%j is not a rate: the reason names the form and echoes the text", (rate) => {
    expect(parseRateLimit(rate, 100)).toBe(
      `the rate must be <n>/s or <n>/min (e.g. 50/s), got "${rate}"`,
    );
  });
});

describe("a burst is a whole number from 1 to 1,000,000,000", () => {
  it.each([1, 2, 999_999_999, 1_000_000_000, "1", "1000000000"])("%j is a burst", (burst) => {
    expect(limitOf("10/s", burst).burst).toBe(Number(burst));
  });

  it.each([
    0,
    -1,
    1.5,
    1_000_000_001,
    Number.NaN,
    Infinity,
    "0",
    "",
    " ",
    "x",
    "2.5",
    "1e10",
    "1000000001",
    "0x10",
    "1e3",
    "16.0",
    "+16",
  ])("%j is not: the reason says the range and echoes the text", (burst) => {
    expect(parseRateLimit("10/s", burst)).toBe(
      `the burst must be a whole number from 1 to 1000000000, got "${String(burst)}"`,
    );
  });
});

describe("a limit is shown as its rate as written and its burst", () => {
  it('"50/s, burst 100" (keys list and messages)', () => {
    expect(describeRateLimit(limitOf("50/s", 100))).toBe("50/s, burst 100");
    expect(describeRateLimit(limitOf("600/min", 7))).toBe("600/min, burst 7");
  });
});

describe("GCRA's emission interval: the milliseconds between two tokens", () => {
  it.each([
    ["50/s", 20],
    ["1/s", 1000],
    ["1/min", 60_000],
    ["600/min", 100],
  ] as const)("%s: %i ms", (rate, ms) => {
    expect(intervalMs(limitOf(rate, 10))).toBe(ms);
  });
});

describe("a lease is half a second of the key's rate, at least 1, at most half the burst", () => {
  it.each([
    ["50/s", 100, 25],
    ["50/s", 40, 20],
    ["50/s", 51, 25],
    ["50/s", 49, 24],
    ["3/s", 100, 2],
    ["5/s", 100, 3],
    ["1/s", 100, 1],
    ["1/min", 100, 1],
    ["50/s", 1, 1],
    ["50/s", 3, 1],
    ["1/min", 5, 1],
    ["10/s", 20, 5],
    ["1000/s", 2000, 500],
  ] as const)("%s burst %i: %i tokens", (rate, burst, size) => {
    expect(leaseSize(limitOf(rate, burst))).toBe(size);
  });
});
