/**
 * How much slower than a quiet machine this test runs right now, for deadlines and bounds that
 * depend on speed. A bound tuned on a quiet machine ("within 12 s", "the withdrawal's 80 ms
 * share") fails when the machine is busy (the other test worker, a second test run, anything
 * else on two cores), though nothing is wrong. Such a bound is written here as `scaled(ms)`, or
 * the code under test gets a `dilatedClock()`, so it holds as well at load average 13 as alone.
 *
 * The factor is measured, never guessed: the larger of
 *   - the share of the CPU this process gets: a few milliseconds of fixed work, its wall time
 *     over the CPU time the process spent on it (1 when nothing else wants the cores);
 *   - the one-minute load average per core (the run queue the next seconds will likely share).
 * Never under 1: a bound never tightens on a fast machine.
 */
import type { Clock } from "../../lib/clock.ts";
import { createHash } from "node:crypto";
import { availableParallelism, loadavg } from "node:os";

/** CPU time the probe spends: long enough to span several scheduler slices. */
const probeCpuMs = 15;
/** Beyond this the machine is not busy but stuck: a bound that large helps nobody. */
const maxFactor = 20;

/** Wall time over CPU time for a fixed piece of work, now. */
function cpuShareFactor(): number {
  const cpuStart = process.cpuUsage();
  const wallStart = performance.now();
  const block = Buffer.alloc(64 * 1024, 7);
  let cpuMs: number;
  do {
    for (let i = 0; i < 8; i++) createHash("sha256").update(block).digest();
    const used = process.cpuUsage(cpuStart);
    cpuMs = (used.user + used.system) / 1000;
  } while (cpuMs < probeCpuMs);
  return (performance.now() - wallStart) / cpuMs;
}

/** How many times slower than a quiet machine this process runs now (at least 1). */
export function slowness(): number {
  const perCore = (loadavg()[0] ?? 0) / availableParallelism();
  return Math.min(maxFactor, Math.max(1, perCore, cpuShareFactor()));
}

/** `ms` of a quiet machine, as long as it takes on this one now. */
export function scaled(ms: number): number {
  return Math.ceil(ms * slowness());
}

/**
 * The service's clock (lib/clock.ts) for a test whose code under test has fixed shares of time
 * after a deadline (a failed create's withdrawal: lib/repositories/categories.ts): the wall
 * clock's time until `slowFrom(at)`, and from `at` on `factor` times slower (by default the
 * measured slowness), so each millisecond those shares count lasts as long as it would on a
 * quiet machine. Give `now` to everything that compares times (the repository and its DynamoDB
 * client), and `reset()` after each test.
 */
export interface SlowingClock {
  readonly now: Clock;
  slowFrom(at: number, factor?: number): void;
  reset(): void;
}

export function slowingClock(): SlowingClock {
  let from = Number.POSITIVE_INFINITY;
  let factor = 1;
  return {
    now: () => {
      const wall = Date.now();
      return wall <= from ? wall : from + Math.floor((wall - from) / factor);
    },
    slowFrom: (at, by = slowness()) => {
      from = at;
      factor = by;
    },
    reset: () => {
      from = Number.POSITIVE_INFINITY;
      factor = 1;
    },
  };
}
