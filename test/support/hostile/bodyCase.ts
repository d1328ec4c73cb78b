/**
 * What a generated body is (its verdict: a valid NewCategory, a certain 400, a certain 413 or
 * anything) and the valid names, descriptions and documents the hostile bodies start from.
 */
import fc from "fast-check";

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
