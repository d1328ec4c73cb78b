/**
 * Splitting the id range a cold list must read into parts that can be queried in parallel.
 *
 * Ids come from one counter, so after reading it the list knows every stored id lies in
 * [1, lastId]; the sort key is the zero-padded id, so each part is one `sk BETWEEN` Query. Parts
 * are large enough that a typical part fits in one 1 MB page (a category is ~200 bytes, so 1,000
 * ids are ~200 KB) and few enough that all run in one wave: 50,000 categories are read in one
 * round of 16 Queries instead of 13 pages one after another.
 */

/** A closed range of ids, low ≤ high. */
export type IdRange = readonly [low: number, high: number];

export interface SplitOptions {
  /** At most this many parts (the Queries run at once). */
  readonly maxParts: number;
  /** No part smaller than this, so a small store is read in one Query. */
  readonly minIds: number;
}

export const coldReadSplit: SplitOptions = { maxParts: 16, minIds: 1000 };

/** [low, high] cut into contiguous parts of near-equal size; empty when high < low. */
export function splitIds(low: number, high: number, options: SplitOptions): IdRange[] {
  const count = high - low + 1;
  const parts = Math.max(1, Math.min(options.maxParts, Math.floor(count / options.minIds)));
  const size = Math.ceil(count / parts);
  const ranges: IdRange[] = [];
  for (let start = low; start <= high; start += size) {
    ranges.push([start, Math.min(high, start + size - 1)]);
  }
  return ranges;
}
