/** Small statistics for the bench: medians, percentiles, and how much a median can move by chance. */

export function sorted(values: readonly number[]): number[] {
  return [...values].sort((a, b) => a - b);
}

/** Linear-interpolated percentile, p in [0, 100]. */
export function percentile(values: readonly number[], p: number): number {
  const ordered = sorted(values);
  if (ordered.length === 0) return Number.NaN;
  const rank = (p / 100) * (ordered.length - 1);
  const low = Math.floor(rank);
  const high = Math.ceil(rank);
  const lowValue = ordered[low] ?? Number.NaN;
  const highValue = ordered[high] ?? Number.NaN;
  return lowValue + (highValue - lowValue) * (rank - low);
}

export function median(values: readonly number[]): number {
  return percentile(values, 50);
}

/**
 * Relative run-to-run noise of a median: the half-width of a 90 % bootstrap interval of the
 * median, over the median. Deterministic (fixed resampling seed), so a rerun on the same samples
 * gives the same allowance.
 */
export function medianNoise(values: readonly number[], rounds = 400): number {
  const center = median(values);
  if (values.length < 3 || !(center > 0)) return 0;
  let state = 0x9e3779b9;
  const random = (): number => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 4294967296;
  };
  const medians: number[] = [];
  for (let round = 0; round < rounds; round++) {
    const sample = values.map(() => values[Math.floor(random() * values.length)] ?? center);
    medians.push(median(sample));
  }
  return (percentile(medians, 95) - percentile(medians, 5)) / 2 / center;
}
