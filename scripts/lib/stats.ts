/** Percentiles for every latency figure the project prints: bench, load, smoke and tests. */

/** Linear-interpolated percentile (p in [0, 100]); NaN for no samples. */
export function percentile(values: readonly number[], p: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  if (sorted.length === 0) return Number.NaN;
  const rank = (p / 100) * (sorted.length - 1);
  const low = sorted[Math.floor(rank)] ?? Number.NaN;
  const high = sorted[Math.ceil(rank)] ?? Number.NaN;
  return low + (high - low) * (rank - Math.floor(rank));
}

export function median(values: readonly number[]): number {
  return percentile(values, 50);
}

export interface Latency {
  readonly count: number;
  readonly p50: number;
  readonly p90: number;
  readonly p99: number;
  readonly max: number;
}

/** count, p50, p90, p99 and max, rounded to `digits` decimals. */
export function latencyOf(samples: readonly number[], digits = 1): Latency {
  const scale = 10 ** digits;
  const at = (p: number): number =>
    samples.length === 0 ? 0 : Math.round(percentile(samples, p) * scale) / scale;
  return { count: samples.length, p50: at(50), p90: at(90), p99: at(99), max: at(100) };
}
