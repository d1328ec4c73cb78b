/**
 * Authorization values around one valid key, each with what the service must do with it, and the
 * header's name as a client might spell it.
 */
import fc from "fast-check";
import { b64tokenChars, base64urlChars, nearMiss, randomKeyLike, stringOf } from "./characters.ts";

/** What the service must do with a generated Authorization header value. */
export type KeyVerdict = "accept" | "refuse";

export interface AuthCase {
  /** undefined: no Authorization header at all. */
  readonly value: string | undefined;
  readonly verdict: KeyVerdict;
  readonly label: string;
}

/** Junk that still shows after String.prototype.trim (which the parser applies to the header). */
const visibleJunk = fc
  .string({ unit: "binary", minLength: 1, maxLength: 40 })
  .filter((junk) => /\S/u.test(junk));

const schemeName = fc.constantFrom("Bearer", "bearer", "BEARER", "bEaReR");
const space = fc.constantFrom(" ", "\t", "  ", " \t ");

/**
 * Authorization values around one valid key: the key as it should be sent (with the tolerated
 * variations: scheme case, several spaces, surrounding white space) and the many ways of getting
 * it wrong (wrong case, extra characters, unicode, two keys, other schemes, near misses, garbage).
 */
export function authorizationArb(key: string): fc.Arbitrary<AuthCase> {
  const accept = (label: string) => (value: string) =>
    ({ value, verdict: "accept", label }) as const;
  const refuse = (label: string) => (value: string | undefined) =>
    ({ value, verdict: "refuse", label }) as const;
  return fc.oneof(
    { weight: 12, arbitrary: fc.constant(accept("exact")(`Bearer ${key}`)) },
    {
      weight: 4,
      arbitrary: fc
        .tuple(schemeName, fc.integer({ min: 1, max: 4 }), space, space)
        .map(([scheme, spaces, before, after]) =>
          accept("spacing and scheme case")(
            `${before}${scheme}${" ".repeat(spaces)}${key}${after}`,
          ),
        ),
    },
    {
      weight: 2,
      arbitrary: fc
        .constantFrom(undefined, "", "   ", "Bearer", "bearer ", "\t")
        .map(refuse("missing")),
    },
    {
      weight: 1,
      arbitrary: fc.constant(refuse("tab after the scheme")(`Bearer\t${key}`)),
    },
    {
      weight: 3,
      arbitrary: visibleJunk.map((junk) => refuse("trailing junk")(`Bearer ${key}${junk}`)),
    },
    {
      weight: 2,
      arbitrary: visibleJunk.map((junk) => refuse("leading junk")(`Bearer ${junk}${key}`)),
    },
    {
      weight: 2,
      arbitrary: fc
        .tuple(fc.nat(), fc.string({ unit: "binary", minLength: 1, maxLength: 3 }))
        .filter(([, inserted]) => /\S/u.test(inserted))
        .map(([at, inserted]) => {
          const index = 1 + (at % (key.length - 1));
          return refuse("unicode inside the key")(
            `Bearer ${key.slice(0, index)}${inserted}${key.slice(index)}`,
          );
        }),
    },
    {
      weight: 2,
      arbitrary: fc
        .constantFrom(key.toLowerCase(), key.toUpperCase())
        .filter((changed) => changed !== key)
        .map((changed) => refuse("key case changed")(`Bearer ${changed}`)),
    },
    {
      weight: 3,
      arbitrary: fc
        .tuple(fc.nat(), fc.constantFrom(...base64urlChars.split("")))
        .map(([at, char]) => refuse("near miss")(`Bearer ${nearMiss(key, at, char)}`)),
    },
    {
      weight: 1,
      arbitrary: fc
        .integer({ min: 1, max: key.length - 1 })
        .map((length) => refuse("truncated")(`Bearer ${key.slice(0, length)}`)),
    },
    {
      weight: 2,
      arbitrary: fc
        .constantFrom(
          `Bearer ${key} ${key}`,
          `Bearer ${key},Bearer ${key}`,
          `Bearer ${key}, Bearer ${key}`,
          `Bearer ${key}${key}`,
          `Bearer ${key}=`,
          `Bearer "${key}"`,
          `Bearer ${key};`,
        )
        .map(refuse("two keys or decorated")),
    },
    {
      weight: 2,
      arbitrary: fc
        .constantFrom(
          `Basic ${Buffer.from(`${key}:`).toString("base64")}`,
          `Token ${key}`,
          key,
          `Bearer:${key}`,
          `Bearer=${key}`,
          `Bearer_${key}`,
          `ApiKey ${key}`,
        )
        .map(refuse("other scheme")),
    },
    {
      weight: 2,
      arbitrary: randomKeyLike.map((guess) => refuse("unknown key")(`Bearer ${guess}`)),
    },
    {
      weight: 2,
      arbitrary: fc
        .tuple(schemeName, stringOf(b64tokenChars, 1, 120))
        .map(([scheme, token]) => refuse("random b64token")(`${scheme} ${token}`)),
    },
    {
      weight: 3,
      arbitrary: fc.string({ unit: "binary", maxLength: 200 }).map(refuse("random text")),
    },
    {
      weight: 1,
      arbitrary: fc
        .integer({ min: 1_000, max: 20_000 })
        .map((length) => refuse("very long token")(`Bearer ${"A".repeat(length)}`)),
    },
  );
}

/** The Authorization header's name as a client might spell it (API Gateway lower-cases it). */
export const authorizationName = fc.constantFrom(
  "authorization",
  "authorization",
  "Authorization",
  "AUTHORIZATION",
  "aUtHoRiZaTiOn",
);
