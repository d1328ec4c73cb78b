/**
 * Bodies wrong in their shape on the wire: nested far too deep, near and over 64 KiB in 1- to
 * 4-byte characters, base64 flags that lie, invalid UTF-8.
 */
import fc from "fast-check";
import type { BodyCase, BodyVerdict } from "./bodyCases.ts";
import { base64, maxBodyBytes, text, validCategoryText, withBytesAt } from "./bodyCases.ts";

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
