/**
 * A seeded pseudo-random source (mulberry32): the same seed gives the same numbers, so the bench's
 * rows are the same in every run and variant, and a fault campaign replays its choices.
 */
export function randomSource(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = Math.imul(state ^ (state >>> 15), state | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
