/**
 * A key's rate limit: a token bucket of `burst` tokens refilled at `perSecond` (contract, "Rate
 * limits"). Operators write the rate as `<n>/s` or `<n>/min` (`npm run keys`, the template's
 * DefaultRateLimit); the key record keeps that text, so `keys list` shows what was set.
 */
export interface RateLimit {
  /** As written: "50/s", "600/min". */
  readonly rate: string;
  readonly perSecond: number;
  readonly burst: number;
}

const ratePattern = /^([1-9][0-9]{0,8})\/(s|min)$/;
const maxBurst = 1_000_000_000;

/** The limit, or a one-line reason why the text is not one. */
export function parseRateLimit(rate: string, burst: number | string): RateLimit | string {
  const text = rate.trim();
  const match = ratePattern.exec(text);
  if (!match?.[1]) return `the rate must be <n>/s or <n>/min (e.g. 50/s), got "${rate}"`;
  const count = Number(match[1]);
  // Written as decimal digits (the white space around them aside): Number() alone would also
  // take "0x10" or "1e3", which no operator means as a burst.
  const bursting =
    typeof burst === "number" ? burst : /^\s*\d+\s*$/.test(burst) ? Number(burst) : Number.NaN;
  if (!Number.isSafeInteger(bursting) || bursting < 1 || bursting > maxBurst) {
    return `the burst must be a whole number from 1 to ${maxBurst}, got "${String(burst)}"`;
  }
  // The whole text matched: it is the rate as written (no leading zero, no spaces).
  return { rate: text, perSecond: match[2] === "min" ? count / 60 : count, burst: bursting };
}

/** "50/s, burst 100": how `keys list` and messages show a limit. */
export function describeRateLimit(limit: RateLimit): string {
  return `${limit.rate}, burst ${limit.burst}`;
}

/** Milliseconds between two tokens (GCRA's emission interval). */
export function intervalMs(limit: RateLimit): number {
  return 1000 / limit.perSecond;
}

/**
 * How many tokens a container leases at a time: half a second of the key's rate, at least 1, at
 * most half the burst. One lease is one write, so at 50/s a lease of 25 costs 0.04 write units a
 * request (plus the writes that lose a race, docs/rate-limits.md); the tokens a container holds
 * when its traffic stops, at most one lease, are the accuracy this costs.
 */
export function leaseSize(limit: RateLimit): number {
  const byRate = Math.round(limit.perSecond * leaseSeconds);
  return Math.max(1, Math.min(byRate, Math.floor(limit.burst / 2)));
}

export const leaseSeconds = 0.5;
