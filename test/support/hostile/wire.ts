/**
 * Generated wire requests for test/security/hostile/wire.test.ts: raw header bytes (HTAB,
 * visible ASCII, obs-text), Authorization sent as zero, one or several lines around one valid
 * key, Content-Type lines repeated or conflicting, extra header lines, and raw bodies (valid
 * JSON, invalid UTF-8, random bytes, a BOM, UTF-16, Latin-1, sizes near 64 KiB); each request
 * with the status the contract's order of checks demands for it, where it is certain.
 */
import fc from "fast-check";
import { maxBodyBytes, validCategoryText, withBytesAt } from "./bodies.ts";
import type { KeyVerdict, MediaVerdict } from "./headers.ts";
import { nearMiss, randomKeyLike, weighted } from "./headers.ts";

export type Header = readonly [string, Buffer];
export const latin1 = (text: string): Buffer => Buffer.from(text, "latin1");

/** Header value bytes a client can put on the wire: HTAB, visible ASCII, space and obs-text. */
const headerBytes = fc
  .array(
    fc.oneof(
      fc.integer({ min: 0x20, max: 0x7e }),
      fc.constant(0x09),
      fc.integer({ min: 0x80, max: 0xff }),
    ),
    { maxLength: 120 },
  )
  .map((bytes) => Buffer.from(bytes));

export interface AuthLines {
  readonly values: readonly Buffer[];
  /** undefined: the contract leaves it open (obs-text white space around the key). */
  readonly verdict: KeyVerdict | undefined;
  readonly label: string;
}

export function authLinesArb(validKey: string): fc.Arbitrary<AuthLines> {
  const bearer = latin1(`Bearer ${validKey}`);
  const lines =
    (verdict: KeyVerdict | undefined, label: string) =>
    (...values: Buffer[]): AuthLines => ({ values, verdict, label });
  return weighted<AuthLines>(
    [6, fc.constant(lines("accept", "one line")(bearer))],
    [
      2,
      fc
        .constantFrom(`  Bearer   ${validKey}  `, `\tbearer ${validKey}\t`, `BEARER ${validKey}`)
        .map((value) => lines("accept", "spacing and case")(latin1(value))),
    ],
    [1, fc.constant(lines("refuse", "no header")())],
    [3, fc.constant(lines("refuse", "the key twice, two lines")(bearer, bearer))],
    [
      2,
      headerBytes.chain((junk) =>
        fc.constantFrom(
          lines("refuse", "key then junk line")(bearer, junk),
          lines("refuse", "junk then key line")(junk, bearer),
        ),
      ),
    ],
    [
      2,
      fc
        .constantFrom([0xff], [0xe9], [0xc3, 0xa9], [0xe2, 0x80, 0x8b], [0x80])
        .map((bytes) =>
          lines(
            "refuse",
            "non-ASCII byte after the key",
          )(Buffer.concat([bearer, Buffer.from(bytes)])),
        ),
    ],
    [
      1,
      fc
        .constantFrom([0xa0], [0xc2, 0xa0])
        .map((bytes) =>
          lines(
            undefined,
            "no-break space after the key",
          )(Buffer.concat([bearer, Buffer.from(bytes)])),
        ),
    ],
    [
      2,
      fc
        .tuple(fc.nat(), fc.constantFrom([0xc3, 0xa9], [0xff], [0x09], [0x20]))
        .map(([at, bytes]) => {
          const index = 10 + (at % (validKey.length - 10));
          return lines(
            "refuse",
            "bytes inside the key",
          )(
            Buffer.concat([
              latin1(`Bearer ${validKey.slice(0, index)}`),
              Buffer.from(bytes),
              latin1(validKey.slice(index)),
            ]),
          );
        }),
    ],
    [
      2,
      fc
        .tuple(fc.nat(), fc.constantFrom(..."AZaz09-_".split("")))
        .map(([at, char]) =>
          lines("refuse", "near miss")(latin1(`Bearer ${nearMiss(validKey, at, char)}`)),
        ),
    ],
    [1, randomKeyLike.map((guess) => lines("refuse", "unknown key")(latin1(`Bearer ${guess}`)))],
    [2, headerBytes.map((junk) => lines("refuse", "random bytes")(junk))],
  );
}

export interface MediaLines {
  readonly values: readonly Buffer[];
  readonly verdict: MediaVerdict;
}

export const mediaLinesArb: fc.Arbitrary<MediaLines> = weighted<MediaLines>(
  [
    6,
    fc
      .constantFrom([], ["application/json"], ["application/json; charset=utf-8"])
      .map((values) => ({ values: values.map(latin1), verdict: "json" as const })),
  ],
  [
    2,
    fc
      .constantFrom(
        ["application/json", "application/json"],
        ["application/json", "text/plain"],
        ["text/plain", "application/json"],
        ["text/plain"],
        [""],
        ["application/x-www-form-urlencoded"],
      )
      .map((values) => ({ values: values.map(latin1), verdict: "not_json" as const })),
  ],
  [1, headerBytes.map((bytes) => ({ values: [bytes], verdict: "unknown" as const }))],
);

export const extraLinesArb = fc.array(
  fc.tuple(
    fc.constantFrom(
      "x-custom",
      "X-Custom",
      "x-forwarded-for",
      "accept",
      "user-agent",
      "cookie",
      "accept-encoding",
    ),
    headerBytes,
  ),
  { maxLength: 5 },
);

export type BodyKind = "valid" | "bad_request" | "too_large";
export interface WireBody {
  readonly bytes: Buffer;
  readonly kind: BodyKind;
  readonly label: string;
}

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

export const wireBodyArb: fc.Arbitrary<WireBody> = weighted<WireBody>(
  [5, validCategoryText.map((json) => body("valid", "JSON")(Buffer.from(json)))],
  [
    3,
    fc.tuple(validCategoryText, invalidUtf8, fc.nat()).map(([json, bad, at]) => {
      const bytes = withBytesAt(json, at % (json.length + 1), bad);
      return body("bad_request", "invalid UTF-8 inside JSON")(bytes);
    }),
  ],
  [
    2,
    fc
      .uint8Array({ maxLength: 2_048 })
      .map((bytes) => body("bad_request", "random bytes")(Buffer.from(bytes))),
  ],
  [
    2,
    validCategoryText.chain((json) =>
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
  ],
  [
    1,
    fc.tuple(fc.integer({ min: -4, max: 4 }), invalidUtf8).map(([delta, bad]) => {
      const size = maxBodyBytes + delta;
      const bytes = Buffer.alloc(size, "x");
      Buffer.from(bad).copy(bytes, Math.floor(size / 2));
      return body(
        size > maxBodyBytes ? "too_large" : "bad_request",
        "invalid UTF-8 near 64 KiB",
      )(bytes);
    }),
  ],
  [
    1,
    fc.integer({ min: -4, max: 4 }).map((delta) => {
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
  ],
);

export interface WireCase {
  readonly method: "GET" | "POST";
  readonly authName: string;
  readonly auth: AuthLines;
  readonly mediaName: string;
  readonly media: MediaLines;
  readonly extra: readonly (readonly [string, Buffer])[];
  readonly body: WireBody;
}

export function expectedStatus(input: WireCase): number | undefined {
  if (input.auth.verdict === undefined) return undefined;
  if (input.auth.verdict === "refuse") return 401;
  if (input.method === "GET") return 200;
  if (input.media.verdict === "unknown") return undefined;
  if (input.media.verdict === "not_json") return 415;
  return { valid: 201, bad_request: 400, too_large: 413 }[input.body.kind];
}

export function wireCaseArb(key: string): fc.Arbitrary<WireCase> {
  return fc.record({
    method: fc.constantFrom("POST", "POST", "POST", "GET"),
    authName: fc.constantFrom("Authorization", "authorization", "AUTHORIZATION"),
    auth: authLinesArb(key),
    mediaName: fc.constantFrom("Content-Type", "content-type", "CONTENT-TYPE"),
    media: mediaLinesArb,
    extra: extraLinesArb,
    body: wireBodyArb,
  });
}
