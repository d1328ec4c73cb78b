/**
 * The request headers a hostile client sends: Authorization values around one valid key (with
 * what the service must do with each, and the header's name as a client might spell it), built
 * from the alphabets of a bearer token and the near misses of a key; Content-Types that are or
 * are not JSON; extra headers the service never reads; Accept-Encoding and Idempotency-Key
 * values; and `setHeader`, which puts one of them on an event.
 */
import fc from "fast-check";

/** `fc.oneof` over [weight, arbitrary] pairs: one line per theme of cases. */
export function weighted<T>(
  ...alternatives: (readonly [number, fc.Arbitrary<T>])[]
): fc.Arbitrary<T> {
  return fc.oneof(...alternatives.map(([weight, arbitrary]) => ({ weight, arbitrary })));
}

export const b64tokenChars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~+/";
export const base64urlChars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/** A string of `length` characters drawn from `alphabet`. */
export function stringOf(
  alphabet: string,
  minLength: number,
  maxLength: number,
): fc.Arbitrary<string> {
  return fc
    .array(fc.constantFrom(...alphabet.split("")), { minLength, maxLength })
    .map((chars) => chars.join(""));
}

/** A key-shaped string that is not a valid key: what a guessing client would send. */
export const randomKeyLike = stringOf(base64urlChars, 43, 43).map((rest) => `petstore_${rest}`);

/** The key with one character changed at `position` (mod its length). */
export function nearMiss(key: string, position: number, replacement: string): string {
  const index = position % key.length;
  const current = key[index] ?? "";
  const other =
    replacement === current
      ? (base64urlChars[(base64urlChars.indexOf(current) + 1) % base64urlChars.length] ?? "A")
      : replacement;
  return `${key.slice(0, index)}${other}${key.slice(index + 1)}`;
}

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
  return weighted<AuthCase>(
    [12, fc.constant(accept("exact")(`Bearer ${key}`))],
    [
      4,
      fc
        .tuple(schemeName, fc.integer({ min: 1, max: 4 }), space, space)
        .map(([scheme, spaces, before, after]) =>
          accept("spacing and scheme case")(
            `${before}${scheme}${" ".repeat(spaces)}${key}${after}`,
          ),
        ),
    ],
    [2, fc.constantFrom(undefined, "", "   ", "Bearer", "bearer ", "\t").map(refuse("missing"))],
    [1, fc.constant(refuse("tab after the scheme")(`Bearer\t${key}`))],
    [3, visibleJunk.map((junk) => refuse("trailing junk")(`Bearer ${key}${junk}`))],
    [2, visibleJunk.map((junk) => refuse("leading junk")(`Bearer ${junk}${key}`))],
    [
      2,
      fc
        .tuple(fc.nat(), fc.string({ unit: "binary", minLength: 1, maxLength: 3 }))
        .filter(([, inserted]) => /\S/u.test(inserted))
        .map(([at, inserted]) => {
          const index = 1 + (at % (key.length - 1));
          return refuse("unicode inside the key")(
            `Bearer ${key.slice(0, index)}${inserted}${key.slice(index)}`,
          );
        }),
    ],
    [
      2,
      fc
        .constantFrom(key.toLowerCase(), key.toUpperCase())
        .filter((changed) => changed !== key)
        .map((changed) => refuse("key case changed")(`Bearer ${changed}`)),
    ],
    [
      3,
      fc
        .tuple(fc.nat(), fc.constantFrom(...base64urlChars.split("")))
        .map(([at, char]) => refuse("near miss")(`Bearer ${nearMiss(key, at, char)}`)),
    ],
    [
      1,
      fc
        .integer({ min: 1, max: key.length - 1 })
        .map((length) => refuse("truncated")(`Bearer ${key.slice(0, length)}`)),
    ],
    [
      2,
      fc
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
    ],
    [
      2,
      fc
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
    ],
    [2, randomKeyLike.map((guess) => refuse("unknown key")(`Bearer ${guess}`))],
    [
      2,
      fc
        .tuple(schemeName, stringOf(b64tokenChars, 1, 120))
        .map(([scheme, token]) => refuse("random b64token")(`${scheme} ${token}`)),
    ],
    [3, fc.string({ unit: "binary", maxLength: 200 }).map(refuse("random text"))],
    [
      1,
      fc
        .integer({ min: 1_000, max: 20_000 })
        .map((length) => refuse("very long token")(`Bearer ${"A".repeat(length)}`)),
    ],
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

/** What the contract says about a generated Content-Type (undefined: no header, read as JSON). */
export type MediaVerdict = "json" | "not_json" | "unknown";

export interface MediaCase {
  readonly value: string | undefined;
  readonly verdict: MediaVerdict;
}

export const contentTypeName = fc.constantFrom(
  "content-type",
  "content-type",
  "Content-Type",
  "CONTENT-TYPE",
);

export const contentTypeArb: fc.Arbitrary<MediaCase> = weighted<MediaCase>(
  [
    6,
    fc
      .constantFrom(
        undefined,
        "application/json",
        "application/json",
        "application/json; charset=utf-8",
        "application/json;charset=UTF-8",
        "APPLICATION/JSON",
        " application/json ",
        "application/vnd.petstore+json",
        "application/problem+json; q=1",
        "application/json; foo=bar",
        "application/json;;;",
      )
      .map((value) => ({ value, verdict: "json" as const })),
  ],
  [
    2,
    fc
      .constantFrom(
        "",
        "text/plain",
        "text/json",
        "application/xml",
        "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=x",
        "application/json, application/json",
        "application/json,text/plain",
        "application/jsonx",
        "application/json+xml",
        // JSON is UTF-8: a body labelled otherwise would be misread.
        "application/json; charset=latin1; foo=bar",
        "json",
        "application/ json",
        "*/*",
      )
      .map((value) => ({ value, verdict: "not_json" as const })),
  ],
  [
    1,
    fc
      .string({ unit: "binary", maxLength: 60 })
      .map((value) => ({ value, verdict: "unknown" as const })),
  ],
);

/** Extra headers with odd names and values; never one the service reads. */
export const extraHeadersArb = fc.dictionary(
  stringOf("abcdefghijklmnopqrstuvwxyz-_0123456789ABC", 1, 20)
    .map((name) => `x-${name}`)
    .filter((name) => !name.toLowerCase().startsWith("x-amz")),
  fc.string({ unit: "binary", maxLength: 80 }),
  { maxKeys: 4 },
);

export const acceptEncodingArb = fc.option(
  fc.oneof(
    fc.constantFrom(
      "gzip",
      "br",
      "gzip, br",
      "br;q=0, gzip;q=0",
      "*",
      "identity",
      "gzip;q=abc",
      "br;q=1e9",
    ),
    fc.string({ maxLength: 40 }),
  ),
  { nil: undefined, freq: 2 },
);

export type IdempotencyVerdict = "none" | "fresh" | "shared" | "invalid";
export interface IdempotencyCase {
  readonly value: string | undefined;
  readonly verdict: IdempotencyVerdict;
}

let freshKeys = 0;

/** Mostly absent; sometimes unique, sometimes one key shared by many cases, sometimes invalid. */
export const idempotencyArb: fc.Arbitrary<IdempotencyCase> = weighted<IdempotencyCase>(
  [12, fc.constant({ value: undefined, verdict: "none" as const })],
  // fast-check draws the same uuid more than once: a counter makes every "fresh" key new.
  [
    1,
    fc.uuid().map((value) => ({
      value: `fresh-${value}-${String((freshKeys += 1))}`,
      verdict: "fresh" as const,
    })),
  ],
  [
    1,
    fc.constantFrom("shared-1", "shared-2").map((value) => ({
      value,
      verdict: "shared" as const,
    })),
  ],
  [
    1,
    fc
      .oneof(
        fc.constantFrom("", "é", "a\tb", "x".repeat(256), "\u0000", "\ud800"),
        fc
          .string({ unit: "binary", minLength: 1, maxLength: 20 })
          .filter((v) => !/^[\x20-\x7e]+$/.test(v)),
      )
      .map((value) => ({ value, verdict: "invalid" as const })),
  ],
);

/**
 * Sets the header under `name`, removing any other spelling of it first, or removes it when
 * `value` is undefined.
 */
export function setHeader(
  headers: Record<string, string | undefined>,
  name: string,
  value: string | undefined,
): void {
  for (const existing of Object.keys(headers)) {
    if (existing.toLowerCase() === name.toLowerCase()) Reflect.deleteProperty(headers, existing);
  }
  if (value !== undefined) headers[name] = value;
}
