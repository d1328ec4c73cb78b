/**
 * Hostile-input generators and the properties every answer must keep, shared by the handler-level
 * and wire-level property tests in test/security/.
 *
 * Each generator says what it made: an Authorization value the service must accept or refuse, a
 * Content-Type that is or is not JSON, a body that is a valid NewCategory, a certain 400, a certain
 * 413, or anything at all. The tests turn those verdicts into the status the contract's order of
 * checks demands (route, then key, then media type, size, JSON syntax, fields), and check the
 * invariants on every answer whatever the input: never a 5xx, the Error shape, no key, no hash and
 * no presented token echoed back or logged, nothing stored unless 201.
 */
import { createHash } from "node:crypto";
import fc from "fast-check";
import { expect } from "vitest";

/** What the service must do with a generated Authorization header value. */
export type KeyVerdict = "accept" | "refuse";

export interface AuthCase {
  /** undefined: no Authorization header at all. */
  readonly value: string | undefined;
  readonly verdict: KeyVerdict;
  readonly label: string;
}

/** What the contract says about a generated Content-Type (undefined: no header, read as JSON). */
export type MediaVerdict = "json" | "not_json" | "unknown";

export interface MediaCase {
  readonly value: string | undefined;
  readonly verdict: MediaVerdict;
}

/**
 * valid: a NewCategory the service must store; bad_request: certainly a 400 (invalid_json or
 * invalid_body); too_large: over 64 KiB, certainly 413; unknown: anything (the invariants only).
 */
export type BodyVerdict = "valid" | "bad_request" | "too_large" | "unknown";

export interface BodyCase {
  readonly body: string | undefined;
  readonly isBase64Encoded: boolean;
  readonly verdict: BodyVerdict;
  readonly label: string;
}

export const maxBodyBytes = 64 * 1024;

export const sha256 = (text: string): string =>
  createHash("sha256").update(text, "utf8").digest("hex");

const b64tokenChars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~+/";
const base64urlChars = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

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

/**
 * Runs of RFC 6750 b64token characters longer than 8 in what a request presented: anything that
 * could be a key. Runs of fewer than 4 distinct characters ("AAAAAAAAAA", "/////////") carry no
 * key's entropy and could match an answer by chance, so they are left out.
 */
export function keyLikeRuns(...values: readonly (string | undefined)[]): string[] {
  return values
    .flatMap((value) => value?.match(/[A-Za-z0-9\-._~+/=]{9,}/g) ?? [])
    .filter((run) => new Set(run).size >= 4);
}

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

export const contentTypeName = fc.constantFrom(
  "content-type",
  "content-type",
  "Content-Type",
  "CONTENT-TYPE",
);

export const contentTypeArb: fc.Arbitrary<MediaCase> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc
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
        "application/json; charset=latin1; foo=bar",
        "application/json;;;",
      )
      .map((value) => ({ value, verdict: "json" as const })),
  },
  {
    weight: 2,
    arbitrary: fc
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
        "json",
        "application/ json",
        "*/*",
      )
      .map((value) => ({ value, verdict: "not_json" as const })),
  },
  {
    weight: 1,
    arbitrary: fc
      .string({ unit: "binary", maxLength: 60 })
      .map((value) => ({ value, verdict: "unknown" as const })),
  },
);

/** Names within the contract: 1..100 code points after trimming, no control characters. */
const nameChar = fc.constantFrom(...("abcXYZ019 -_'.,&é漢字🐇🦜".match(/./gu) ?? ["a"]));
export const validNameArb = fc
  .tuple(
    fc.constantFrom("a", "Z", "é", "🐇", "Dogs"),
    fc.array(nameChar, { maxLength: 60 }),
    fc.constantFrom("", " ", "\t ", "\n"),
  )
  .map(([first, rest, pad]) => `${pad}${first}${rest.join("")}${pad}`);
const descriptionChar = fc.constantFrom(...('abc XYZ\n\t🐕\u2028"\\/ü'.match(/./gsu) ?? ["a"]));
export const validDescriptionArb = fc
  .array(descriptionChar, { maxLength: 300 })
  .map((chars) => chars.join(""));

const validCategoryText = fc
  .tuple(validNameArb, fc.option(validDescriptionArb, { nil: undefined }), fc.boolean())
  .map(([name, description, descriptionFirst]) => {
    const fields: [string, string][] = [["name", name]];
    if (description !== undefined) fields.push(["description", description]);
    if (descriptionFirst) fields.reverse();
    return `{${fields.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(",")}}`;
  });

const text = (verdict: BodyVerdict, label: string) => (body: string | undefined) =>
  ({ body, isBase64Encoded: false, verdict, label }) as const;
const base64 = (verdict: BodyVerdict, label: string) => (bytes: Uint8Array | string) =>
  ({
    body: Buffer.from(bytes).toString("base64"),
    isBase64Encoded: true,
    verdict,
    label,
  }) as const;

/** A document nested `depth` levels deep, as arrays or objects, optionally inside a description. */
const deepDocument = fc
  .tuple(
    fc.oneof(
      fc.integer({ min: 1, max: 2_000 }),
      fc.integer({ min: 2_000, max: 32_000 }),
      fc.integer({ min: 32_000, max: 100_000 }),
    ),
    fc.constantFrom("array", "object", "inside description"),
  )
  .map(([depth, shape]) => {
    const nested =
      shape === "array"
        ? "[".repeat(depth) + "]".repeat(depth)
        : '{"a":'.repeat(depth) + "1" + "}".repeat(depth);
    const body =
      shape === "inside description" ? `{"name":"deep","description":${nested}}` : nested;
    const verdict: BodyVerdict =
      Buffer.byteLength(body) > maxBodyBytes ? "too_large" : "bad_request";
    return { body, isBase64Encoded: false, verdict, label: `nested ${shape} ${depth}` } as const;
  });

/** `{"name":"x","description":"…"}` padded to `size` bytes, with 1-, 2-, 3- or 4-byte characters. */
const sizedBody = fc
  .tuple(
    fc.integer({ min: -8, max: 8 }),
    fc.constantFrom("x", "é", "€", "🐇"),
    fc.constantFrom(maxBodyBytes, 4 * maxBodyBytes),
  )
  .map(([delta, char, around]) => {
    const prefix = '{"name":"x","description":"';
    const target = around + delta;
    const room = Math.max(0, target - prefix.length - 2);
    const charBytes = Buffer.byteLength(char);
    const filler = char.repeat(Math.floor(room / charBytes)) + "x".repeat(room % charBytes);
    const body = `${prefix}${filler}"}`;
    // Under the limit the body is still far over 1,000 code points: a 400 either way.
    const verdict: BodyVerdict =
      Buffer.byteLength(body) > maxBodyBytes ? "too_large" : "bad_request";
    return { body, isBase64Encoded: false, verdict, label: `sized ${target} (${char})` } as const;
  });

const loneSurrogate = fc.constantFrom("\ud800", "\udbff", "\udc00", "\udfff");
const loneEscape = fc.constantFrom("\\ud800", "\\uDBFF", "\\udc00", "\\uDFFF", "\\ud800\\u0041");

const surrogateBodies: fc.Arbitrary<BodyCase> = fc.oneof(
  loneEscape.map((escape) =>
    text("bad_request", "lone surrogate escape in name")(`{"name":"a${escape}"}`),
  ),
  loneEscape.map((escape) =>
    text(
      "bad_request",
      "lone surrogate escape in description",
    )(`{"name":"a","description":"${escape}"}`),
  ),
  loneEscape.map((escape) =>
    text("bad_request", "lone surrogate escape in a field name")(`{"name":"a","${escape}":1}`),
  ),
  loneSurrogate.map((raw) =>
    text("bad_request", "raw lone surrogate in name")(`{"name":"a${raw}b"}`),
  ),
  loneSurrogate.map((raw) =>
    text("bad_request", "raw lone surrogate in description")(`{"name":"a","description":"${raw}"}`),
  ),
  loneSurrogate.map((raw) =>
    text("bad_request", "raw lone surrogate as a field")(`{"${raw}":"a"}`),
  ),
  fc.string({ unit: "binary", maxLength: 200 }).map(text("unknown", "binary string")),
);

const prototypeKey = fc.constantFrom("__proto__", "constructor", "prototype");
const prototypeValue = fc.constantFrom(
  "1",
  "null",
  '"x"',
  "{}",
  '{"prototype":{}}',
  '{"polluted":true}',
  '{"name":"evil"}',
  "[]",
);
const prototypeBodies: fc.Arbitrary<BodyCase> = fc
  .tuple(prototypeKey, prototypeValue, fc.constantFrom("top", "first", "nested", "in array"))
  .map(([key, value, where]) => {
    const member = `${JSON.stringify(key)}:${value}`;
    const body =
      where === "top"
        ? `{"name":"x",${member}}`
        : where === "first"
          ? `{${member},"name":"x"}`
          : where === "nested"
            ? `{"name":"x","description":{${member}}}`
            : `[{"name":"x",${member}}]`;
    return text("bad_request", `${key} ${where}`)(body);
  });

const duplicatedKeys: fc.Arbitrary<BodyCase> = fc.oneof(
  validNameArb.map((name) =>
    text("valid", "duplicated name, last valid")(`{"name":1,"name":${JSON.stringify(name)}}`),
  ),
  validNameArb.map((name) =>
    text(
      "bad_request",
      "duplicated name, last invalid",
    )(`{"name":${JSON.stringify(name)},"name":null}`),
  ),
  fc.constant(
    text(
      "bad_request",
      "duplicated description, last null",
    )('{"name":"a","description":"x","description":null}'),
  ),
);

const plainBadBodies: fc.Arbitrary<BodyCase> = fc.oneof(
  fc.constantFrom(undefined, "", " ", "\n\t ", "\ufeff").map(text("bad_request", "missing")),
  fc
    .constantFrom(
      "null",
      "[]",
      '"name"',
      "0",
      "true",
      "{}",
      '{"name":""}',
      '{"name":"   "}',
      '{"name":null}',
      '{"name":1}',
      '{"name":["a"]}',
      '{"name":"a\\u0000"}',
      '{"name":"a\\u0085b"}',
      '{"name":"a","description":null}',
      '{"name":"a","description":"\\u0007"}',
      '{"name":"a","id":1}',
      '{"id":1}',
      `{"name":"${"n".repeat(101)}"}`,
      `{"name":"a","description":"${"d".repeat(1001)}"}`,
      '\ufeff{"name":"bom"}',
      '{"name":"a"',
      '{"name":"a"}}',
      "{name:'a'}",
      '{"name":"a",}',
      '{"name":"a"} {"name":"b"}',
      "NaN",
    )
    .map(text("bad_request", "refused document")),
  fc.jsonValue().map((value) => text("unknown", "json value")(JSON.stringify(value))),
  fc.string({ maxLength: 300 }).map(text("unknown", "ascii string")),
  fc.object().map((value) => text("unknown", "object")(JSON.stringify(value))),
);

const base64Bodies: fc.Arbitrary<BodyCase> = fc.oneof(
  validCategoryText.map(base64("valid", "valid JSON, base64")),
  fc.uint8Array({ maxLength: 2_048 }).map(base64("bad_request", "random bytes, base64")),
  fc
    .uint8Array({ minLength: maxBodyBytes + 1, maxLength: maxBodyBytes + 64 })
    .map(base64("too_large", "random bytes over 64 KiB, base64")),
  fc
    .tuple(
      validCategoryText,
      fc.constantFrom([0xff], [0xc0, 0xaf], [0xed, 0xa0, 0x80], [0xe2, 0x82]),
    )
    .map(([json, bad]) => {
      // Invalid UTF-8 inside the name: overlong, surrogate (CESU-8), truncated, or never valid.
      const at = json.indexOf('"', 8) + 1;
      return base64(
        "bad_request",
        "invalid UTF-8, base64",
      )(
        Buffer.concat([
          Buffer.from(json.slice(0, at)),
          Buffer.from(bad),
          Buffer.from(json.slice(at)),
        ]),
      );
    }),
  // The flag lies: true on text that is not base64, false on text that is.
  validCategoryText.map((json) => ({
    body: json,
    isBase64Encoded: true,
    verdict: "bad_request" as const,
    label: "flag true on JSON text",
  })),
  validCategoryText.map((json) =>
    text("bad_request", "flag false on base64")(Buffer.from(json).toString("base64")),
  ),
  fc.string({ unit: "binary", maxLength: 200 }).map((garbage) => ({
    body: garbage,
    isBase64Encoded: true,
    verdict: "unknown" as const,
    label: "flag true on garbage",
  })),
);

export const bodyArb: fc.Arbitrary<BodyCase> = fc.oneof(
  { weight: 8, arbitrary: validCategoryText.map(text("valid", "valid")) },
  { weight: 2, arbitrary: deepDocument },
  { weight: 1, arbitrary: sizedBody },
  { weight: 3, arbitrary: surrogateBodies },
  { weight: 3, arbitrary: prototypeBodies },
  { weight: 2, arbitrary: duplicatedKeys },
  { weight: 5, arbitrary: plainBadBodies },
  { weight: 4, arbitrary: base64Bodies },
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
export const idempotencyArb: fc.Arbitrary<IdempotencyCase> = fc.oneof(
  { weight: 12, arbitrary: fc.constant({ value: undefined, verdict: "none" as const }) },
  {
    weight: 1,
    // fast-check draws the same uuid more than once: a counter makes every "fresh" key new.
    arbitrary: fc.uuid().map((value) => ({
      value: `fresh-${value}-${String((freshKeys += 1))}`,
      verdict: "fresh" as const,
    })),
  },
  {
    weight: 1,
    arbitrary: fc.constantFrom("shared-1", "shared-2").map((value) => ({
      value,
      verdict: "shared" as const,
    })),
  },
  {
    weight: 1,
    arbitrary: fc
      .oneof(
        fc.constantFrom("", "é", "a\tb", "x".repeat(256), "\u0000", "\ud800"),
        fc
          .string({ unit: "binary", minLength: 1, maxLength: 20 })
          .filter((v) => !/^[\x20-\x7e]+$/.test(v)),
      )
      .map((value) => ({ value, verdict: "invalid" as const })),
  },
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

export interface AnswerView {
  readonly status: number;
  readonly headers: Readonly<Record<string, string | number | boolean>>;
  /** The body decoded from base64 and Content-Encoding. */
  readonly text: string;
  readonly isBase64Encoded?: boolean | undefined;
}

/**
 * The invariants of every answer to any request: below 500 (but the contract's 501), JSON with the contract's
 * Content-Type, the exact Error shape from 400 up, and none of `secrets` (the valid key, its
 * hash, and every key-like run the request presented) anywhere in the status line's body or
 * headers.
 */
export function expectSafeAnswer(answer: AnswerView, secrets: readonly string[]): void {
  const body = JSON.parse(answer.text) as unknown;
  // 501 is the contract's answer for the named-but-unspecified routes, not a failure.
  const notImplemented =
    answer.status === 501 && (body as { code?: unknown } | null)?.code === "not_implemented";
  if (!notImplemented) expect(answer.status, answer.text).toBeLessThan(500);
  expect(answer.headers["content-type"]).toBe("application/json; charset=utf-8");
  if (answer.status >= 400) expect(answer).toBeApiError(answer.status);
  expectNoSecretIn(`${answer.text}\n${JSON.stringify(answer.headers)}`, secrets);
}

export function expectNoSecretIn(haystack: string, secrets: readonly string[]): void {
  for (const secret of secrets) {
    if (haystack.includes(secret)) {
      throw new Error(`a secret (${secret.slice(0, 12)}…) appears in: ${haystack.slice(0, 300)}`);
    }
  }
}

/** Object.prototype has gained no property: no `__proto__` body polluted the process. */
export function expectPrototypeIntact(): void {
  expect(Object.getOwnPropertyNames(Object.prototype).sort()).toEqual(pristinePrototype);
  expect(({} as Record<string, unknown>).polluted).toBeUndefined();
}
const pristinePrototype = Object.getOwnPropertyNames(Object.prototype).sort();
