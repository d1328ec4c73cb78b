/**
 * The `RateLimit-Policy` and `RateLimit` fields of draft-ietf-httpapi-ratelimit-headers (-10, and
 * -11 where it differs), as RFC 9651 Structured Fields: a List with one Item, the String
 * "default", the policy name the service's contract fixes (each key has exactly one policy, its
 * own limit), with Integer parameters.
 *
 *   RateLimit-Policy: "default";q=<requests>;w=<seconds>  (the key's sustained rate, as set)
 *   RateLimit: "default";r=<remaining>;t=<seconds until the bucket is full again>
 *
 * In the draft `q` is a quota of requests per window of `w` seconds, so `q`/`w` is the key's
 * sustained rate in the unit the operator wrote it: 2/s is q=2;w=1, 600/min q=600;w=60. The burst
 * is not a window and has no parameter of the draft: it shows in `r`, which can reach it.
 * (Until 2026-11, q was the burst and w the seconds to refill it: a 2/s burst-3 key read q=3;w=2,
 * which a reader takes for 3 requests per 2 seconds.)
 *
 * Serialised by hand, not with the `structured-headers` package: these two shapes need only a
 * fixed token-free String and non-negative Integers (RFC 9651 §4.1.4: at most 15 digits), which
 * `integer` clamps to, and this code runs on every answer of the Lambda bundles, whose import time
 * is measured. test/lib/rateLimit/headers.test.ts parses every shape with `structured-headers`.
 */
import type { RateLimit } from "./policy.ts";

/** The policy's name in both fields, as the contract fixes it (docs/contract.md). */
const policyName = '"default"';
const maxInteger = 999_999_999_999_999;

/** A count as an Integer: whole units, rounded down (below one, and not a number, are 0). */
function integer(value: number): string {
  if (!Number.isFinite(value) || value < 1) return "0";
  return String(Math.min(maxInteger, Math.floor(value)));
}

/** The key's sustained rate as a quota per window: `<n>/s` is q=n;w=1, `<n>/min` q=n;w=60. */
export function policyField(limit: RateLimit): string {
  const window = limit.rate.endsWith("/min") ? 60 : 1;
  // perSecond × window gives back the n the operator wrote (rounded: n/60 × 60 may not be exact).
  return `${policyName};q=${integer(Math.round(limit.perSecond * window))};w=${String(window)}`;
}

export function rateLimitField(remaining: number, resetSeconds: number): string {
  return `${policyName};r=${integer(remaining)};t=${integer(Math.ceil(resetSeconds))}`;
}
