/**
 * Bodies whose encoding lies: lone UTF-16 surrogates (escaped and raw), random bytes and invalid
 * UTF-8 sent as base64, and base64 flags set on text or left off base64.
 */
import fc from "fast-check";
import type { BodyCase } from "./bodyCase.ts";
import { base64, maxBodyBytes, text, validCategoryText, withBytesAt } from "./bodyCase.ts";

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
