/** Helpers several test files of test/lib share. */
import type { RateLimit } from "../../lib/rateLimit/policy.ts";
import { parseRateLimit } from "../../lib/rateLimit/policy.ts";

/** Every C0 and C1 control character (U+0000–U+001F, U+007F–U+009F). */
export const controlCharacters = [
  ...Array.from({ length: 0x20 }, (_, i) => String.fromCharCode(i)),
  ...Array.from({ length: 0x21 }, (_, i) => String.fromCharCode(0x7f + i)),
];

/** The limit `rate` and `burst` stand for; throws the reason when they stand for none. */
export function limitOf(rate: string, burst: number | string): RateLimit {
  const limit = parseRateLimit(rate, burst);
  if (typeof limit === "string") throw new Error(limit);
  return limit;
}

/** What `promise` was rejected with (undefined: it was fulfilled). */
export const failureOf = (promise: Promise<unknown>): Promise<unknown> =>
  promise.then(
    () => undefined,
    (error: unknown) => error,
  );
