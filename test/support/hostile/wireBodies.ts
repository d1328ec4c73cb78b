/**
 * Raw request bodies for the wire: valid JSON, invalid UTF-8 inside JSON, random bytes, a BOM,
 * UTF-16 and Latin-1 text, and bodies within a few bytes of 64 KiB; each with what it must be
 * answered (201, 400 or 413).
 */
import fc from "fast-check";
import { maxBodyBytes, validDescriptionArb, validNameArb, withBytesAt } from "./bodyCase.ts";

export type BodyKind = "valid" | "bad_request" | "too_large";
export interface WireBody {
  readonly bytes: Buffer;
  readonly kind: BodyKind;
  readonly label: string;
}

const validJson = fc
  .tuple(validNameArb, fc.option(validDescriptionArb, { nil: undefined }))
  .map(([name, description]) =>
    JSON.stringify({ name, ...(description !== undefined && { description }) }),
  );
const invalidUtf8 = fc.constantFrom(
  [0xff],
  [0xfe, 0xff],
  [0xc0, 0xaf], // overlong "/"
  [0xed, 0xa0, 0x80], // a UTF-16 surrogate written as UTF-8 (CESU-8)
  [0xe2, 0x82], // truncated
  [0x80], // lone continuation byte
  [0xf8, 0x88, 0x80, 0x80, 0x80], // five-byte form
);
const body = (kind: BodyKind, label: string) => (bytes: Buffer) => ({ bytes, kind, label });

export const wireBodyArb: fc.Arbitrary<WireBody> = fc.oneof(
  { weight: 5, arbitrary: validJson.map((json) => body("valid", "JSON")(Buffer.from(json))) },
  {
    weight: 3,
    arbitrary: fc.tuple(validJson, invalidUtf8, fc.nat()).map(([json, bad, at]) => {
      const bytes = withBytesAt(json, at % (json.length + 1), bad);
      return body("bad_request", "invalid UTF-8 inside JSON")(bytes);
    }),
  },
  {
    weight: 2,
    arbitrary: fc
      .uint8Array({ maxLength: 2_048 })
      .map((bytes) => body("bad_request", "random bytes")(Buffer.from(bytes))),
  },
  {
    weight: 2,
    arbitrary: validJson.chain((json) =>
      fc.constantFrom(
        body(
          "bad_request",
          "UTF-8 BOM",
        )(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(json)])),
        body("bad_request", "UTF-16LE")(Buffer.from(json, "utf16le")),
        body("bad_request", "Latin-1 é")(Buffer.from(json.replace(/}$/, ',"x":"é"}'), "latin1")),
        body("bad_request", "empty")(Buffer.alloc(0)),
      ),
    ),
  },
  {
    weight: 1,
    arbitrary: fc.tuple(fc.integer({ min: -4, max: 4 }), invalidUtf8).map(([delta, bad]) => {
      const size = maxBodyBytes + delta;
      const bytes = Buffer.alloc(size, "x");
      Buffer.from(bad).copy(bytes, Math.floor(size / 2));
      return body(
        size > maxBodyBytes ? "too_large" : "bad_request",
        "invalid UTF-8 near 64 KiB",
      )(bytes);
    }),
  },
  {
    weight: 1,
    arbitrary: fc.integer({ min: -4, max: 4 }).map((delta) => {
      const prefix = '{"name":"x","description":"';
      const size = maxBodyBytes + delta;
      const json = `${prefix}${"é".repeat(Math.floor((size - prefix.length - 2) / 2))}`;
      const text = `${json}${"x".repeat(size - Buffer.byteLength(json) - 2)}"}`;
      // Under the limit, still far over 1,000 code points: a 400 either way.
      return body(
        size > maxBodyBytes ? "too_large" : "bad_request",
        "JSON near 64 KiB",
      )(Buffer.from(text));
    }),
  },
);
