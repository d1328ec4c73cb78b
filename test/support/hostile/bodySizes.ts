/**
 * Bodies that test the limits: documents nested up to 100,000 levels deep, and bodies within a
 * few bytes of 64 KiB (or 4× over) built from 1- to 4-byte characters.
 */
import fc from "fast-check";
import type { BodyVerdict } from "./bodyCase.ts";
import { maxBodyBytes } from "./bodyCase.ts";

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
