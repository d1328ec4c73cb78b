import { afterEach, describe, expect, it, vi } from "vitest";
import { scaled, slowingClock, slowness } from "./speed.ts";

afterEach(() => {
  vi.useRealTimers();
});

describe("a bound scaled with the machine's measured slowness never tightens", () => {
  it("slowness is at least 1, and scaled(ms) at least ms", () => {
    expect(slowness()).toBeGreaterThanOrEqual(1);
    expect(scaled(250)).toBeGreaterThanOrEqual(250);
  });
});

describe("the slowing clock keeps the wall clock's time until told, then runs slower by the factor", () => {
  it("reads the wall clock, from `at` counts a quarter of the wall's milliseconds, and resets", () => {
    vi.useFakeTimers({ now: 1_000 });
    const clock = slowingClock();
    expect(clock.now()).toBe(1_000);
    clock.slowFrom(1_500, 4);
    vi.setSystemTime(1_500);
    expect(clock.now()).toBe(1_500);
    vi.setSystemTime(2_300);
    expect(clock.now()).toBe(1_700);
    clock.reset();
    expect(clock.now()).toBe(2_300);
  });
});
