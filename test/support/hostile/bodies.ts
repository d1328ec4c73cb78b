/**
 * Request bodies for the hostile-input generators, each with what it is (its verdict: a valid
 * NewCategory, a certain 400, a certain 413 or anything): valid names, descriptions and
 * documents; prototype keys, duplicated keys and the contract's refused documents; encodings that
 * lie (lone surrogates, invalid UTF-8, base64 flags); nesting and sizes around 64 KiB; and
 * `bodyArb`, weighted across all of them.
 */
import fc from "fast-check";
import { weighted } from "./headers.ts";

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

export const validCategoryText = fc
  .tuple(validNameArb, fc.option(validDescriptionArb, { nil: undefined }), fc.boolean())
  .map(([name, description, descriptionFirst]) => {
    const fields: [string, string][] = [["name", name]];
    if (description !== undefined) fields.push(["description", description]);
    if (descriptionFirst) fields.reverse();
    return `{${fields.map(([k, v]) => `${JSON.stringify(k)}:${JSON.stringify(v)}`).join(",")}}`;
  });

export const text = (verdict: BodyVerdict, label: string) => (body: string | undefined) =>
  ({ body, isBase64Encoded: false, verdict, label }) as const;
export const base64 = (verdict: BodyVerdict, label: string) => (bytes: Uint8Array | string) =>
  ({
    body: Buffer.from(bytes).toString("base64"),
    isBase64Encoded: true,
    verdict,
    label,
  }) as const;

/** `json`'s UTF-8 bytes with `bytes` put in at character `at`: invalid UTF-8 inside a document. */
export function withBytesAt(json: string, at: number, bytes: readonly number[]): Buffer {
  return Buffer.concat([
    Buffer.from(json.slice(0, at)),
    Buffer.from(bytes),
    Buffer.from(json.slice(at)),
  ]);
}

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
export const prototypeBodies: fc.Arbitrary<BodyCase> = fc
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

export const duplicatedKeys: fc.Arbitrary<BodyCase> = fc.oneof(
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

export const plainBadBodies: fc.Arbitrary<BodyCase> = fc.oneof(
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

const loneSurrogate = fc.constantFrom("\ud800", "\udbff", "\udc00", "\udfff");
const loneEscape = fc.constantFrom("\\ud800", "\\uDBFF", "\\udc00", "\\uDFFF", "\\ud800\\u0041");

export const surrogateBodies: fc.Arbitrary<BodyCase> = fc.oneof(
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

export const base64Bodies: fc.Arbitrary<BodyCase> = fc.oneof(
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
      return base64("bad_request", "invalid UTF-8, base64")(withBytesAt(json, at, bad));
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

/** A document nested `depth` levels deep, as arrays or objects, optionally inside a description. */
export const deepDocument = fc
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
export const sizedBody = fc
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

export const bodyArb: fc.Arbitrary<BodyCase> = weighted<BodyCase>(
  [8, validCategoryText.map(text("valid", "valid"))],
  [2, deepDocument],
  [1, sizedBody],
  [3, surrogateBodies],
  [3, prototypeBodies],
  [2, duplicatedKeys],
  [5, plainBadBodies],
  [4, base64Bodies],
);
