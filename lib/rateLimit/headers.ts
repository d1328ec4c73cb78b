/**
 * The `RateLimit-Policy` and `RateLimit` fields of draft-ietf-httpapi-ratelimit-headers (-10, and
 * -11 where it differs), as RFC 9651 Structured Fields: a List with one Item, the String
 * "default", with Integer parameters.
 *
 *   RateLimit-Policy: "default";q=<burst>;w=<seconds to refill the whole burst>
 *   RateLimit: "default";r=<remaining>;t=<seconds until the bucket is full again>
 *
 * Serialised by hand, not with the `structured-headers` package: these two shapes need only a
 * fixed token-free String and non-negative Integers (RFC 9651 §4.1.4: at most 15 digits), which
 * `integer` clamps to, and this code runs on every answer of the Lambda bundles, whose import time
 * is measured. test/lib/rateLimit/headers.test.ts parses every shape with `structured-headers`.
 */
import type { RateLimit } from "./policy.ts";

/** The policy's name in both fields (the draft's partition-independent default policy). */
const policyName = '"default"';
const maxInteger = 999_999_999_999_999;

/** A count as an Integer: whole units, rounded down (below one, and not a number, are 0). */
function integer(value: number): string {
  if (!Number.isFinite(value) || value < 1) return "0";
  return String(Math.min(maxInteger, Math.floor(value)));
}

/** The bucket's quota (its burst) and the window in which it refills from empty, whole seconds. */
export function policyField(limit: RateLimit): string {
  const window = Math.max(1, Math.ceil(limit.burst / limit.perSecond));
  return `${policyName};q=${integer(limit.burst)};w=${integer(window)}`;
}

export function rateLimitField(remaining: number, resetSeconds: number): string {
  return `${policyName};r=${integer(remaining)};t=${integer(Math.ceil(resetSeconds))}`;
}
