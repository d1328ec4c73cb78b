/**
 * Paired timing of two kinds of input, robust on a loaded machine.
 *
 * Samples are taken in pairs, one of each kind back to back in a random order, so that whatever
 * else the machine is doing (the other test worker, GC, JIT, frequency scaling) falls on both
 * kinds alike. Two robust statistics decide whether the kinds can be told apart:
 *
 *   - the sign test: in how many pairs the first kind was slower. With no difference this is
 *     1/2; a systematic difference of the order of the noise moves it far from 1/2.
 *   - the medians: their difference, relative to the pooled interquartile range (the spread of
 *     the bulk of the samples, untouched by the outliers a preempted sample makes).
 *
 * The thresholds are generous (many standard errors under no difference), so the verdict does
 * not flip on a noisy run; the positive control in the tests shows they still see a leak.
 */
import { percentile } from "../../scripts/lib/stats.ts";

export interface PairedTiming {
  /** Nanoseconds per sample of the first kind. */
  readonly first: readonly number[];
  /** Nanoseconds per sample of the second kind, same pair at the same index. */
  readonly second: readonly number[];
}

export interface TimingVerdict {
  readonly pairs: number;
  /** Fraction of pairs in which the first kind took longer. */
  readonly firstSlower: number;
  readonly medianFirst: number;
  readonly medianSecond: number;
  /** Interquartile range of all samples pooled. */
  readonly pooledIqr: number;
  /** |median difference| / pooled IQR. */
  readonly medianShift: number;
  readonly distinguishable: boolean;
}

/**
 * Times `measure(first(i))` and `measure(second(i))` for `pairs` pairs in a random order within
 * each pair, after `warmup` untimed pairs. Inputs are built before the clock starts.
 */
export async function timePairs<T>(options: {
  readonly pairs: number;
  readonly warmup: number;
  readonly first: (index: number) => T;
  readonly second: (index: number) => T;
  readonly measure: (input: T) => Promise<unknown>;
}): Promise<PairedTiming> {
  const first: number[] = [];
  const second: number[] = [];
  const once = async (input: T): Promise<number> => {
    const start = process.hrtime.bigint();
    try {
      await options.measure(input);
    } catch {
      // A refusal is the expected outcome; its time is what is measured.
    }
    return Number(process.hrtime.bigint() - start);
  };
  for (let i = 0; i < options.warmup + options.pairs; i++) {
    const a = options.first(i);
    const b = options.second(i);
    let timeA: number;
    let timeB: number;
    if (Math.random() < 0.5) {
      timeA = await once(a);
      timeB = await once(b);
    } else {
      timeB = await once(b);
      timeA = await once(a);
    }
    if (i >= options.warmup) {
      first.push(timeA);
      second.push(timeB);
    }
  }
  return { first, second };
}

/**
 * Indistinguishable when the sign test stays within `signTolerance` of 1/2 and the medians
 * within `shiftTolerance` pooled IQRs of each other.
 */
export function compareTimings(
  timing: PairedTiming,
  { signTolerance = 0.1, shiftTolerance = 0.25 } = {},
): TimingVerdict {
  const pairs = timing.first.length;
  let firstSlower = 0;
  let ties = 0;
  timing.first.forEach((time, index) => {
    const other = timing.second[index] ?? time;
    if (time > other) firstSlower += 1;
    else if (time === other) ties += 1;
  });
  const fraction = (firstSlower + ties / 2) / pairs;
  const pooled = [...timing.first, ...timing.second];
  const pooledIqr = Math.max(1, percentile(pooled, 75) - percentile(pooled, 25));
  const medianFirst = percentile(timing.first, 50);
  const medianSecond = percentile(timing.second, 50);
  const medianShift = Math.abs(medianFirst - medianSecond) / pooledIqr;
  return {
    pairs,
    firstSlower: fraction,
    medianFirst,
    medianSecond,
    pooledIqr,
    medianShift,
    distinguishable: Math.abs(fraction - 0.5) > signTolerance || medianShift > shiftTolerance,
  };
}
