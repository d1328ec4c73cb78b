/**
 * Header lines only the wire carries, for test/security/hostile/wire.test.ts: raw header bytes
 * (HTAB, visible ASCII, obs-text), Authorization sent as zero, one or several lines around one
 * valid key, Content-Type lines repeated or conflicting, and extra header lines.
 */
import fc from "fast-check";
import type { KeyVerdict } from "./authorization.ts";
import { nearMiss, randomKeyLike } from "./characters.ts";
import type { MediaVerdict } from "./headers.ts";

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
  return fc.oneof(
    { weight: 6, arbitrary: fc.constant(lines("accept", "one line")(bearer)) },
    {
      weight: 2,
      arbitrary: fc
        .constantFrom(`  Bearer   ${validKey}  `, `\tbearer ${validKey}\t`, `BEARER ${validKey}`)
        .map((value) => lines("accept", "spacing and case")(latin1(value))),
    },
    { weight: 1, arbitrary: fc.constant(lines("refuse", "no header")()) },
    {
      weight: 3,
      arbitrary: fc.constant(lines("refuse", "the key twice, two lines")(bearer, bearer)),
    },
    {
      weight: 2,
      arbitrary: headerBytes.chain((junk) =>
        fc.constantFrom(
          lines("refuse", "key then junk line")(bearer, junk),
          lines("refuse", "junk then key line")(junk, bearer),
        ),
      ),
    },
    {
      weight: 2,
      arbitrary: fc
        .constantFrom([0xff], [0xe9], [0xc3, 0xa9], [0xe2, 0x80, 0x8b], [0x80])
        .map((bytes) =>
          lines(
            "refuse",
            "non-ASCII byte after the key",
          )(Buffer.concat([bearer, Buffer.from(bytes)])),
        ),
    },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom([0xa0], [0xc2, 0xa0])
        .map((bytes) =>
          lines(
            undefined,
            "no-break space after the key",
          )(Buffer.concat([bearer, Buffer.from(bytes)])),
        ),
    },
    {
      weight: 2,
      arbitrary: fc
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
    },
    {
      weight: 2,
      arbitrary: fc
        .tuple(fc.nat(), fc.constantFrom(..."AZaz09-_".split("")))
        .map(([at, char]) =>
          lines("refuse", "near miss")(latin1(`Bearer ${nearMiss(validKey, at, char)}`)),
        ),
    },
    {
      weight: 1,
      arbitrary: randomKeyLike.map((guess) =>
        lines("refuse", "unknown key")(latin1(`Bearer ${guess}`)),
      ),
    },
    { weight: 2, arbitrary: headerBytes.map((junk) => lines("refuse", "random bytes")(junk)) },
  );
}

export interface MediaLines {
  readonly values: readonly Buffer[];
  readonly verdict: MediaVerdict;
}

export const mediaLinesArb: fc.Arbitrary<MediaLines> = fc.oneof(
  {
    weight: 6,
    arbitrary: fc
      .constantFrom([], ["application/json"], ["application/json; charset=utf-8"])
      .map((values) => ({ values: values.map(latin1), verdict: "json" as const })),
  },
  {
    weight: 2,
    arbitrary: fc
      .constantFrom(
        ["application/json", "application/json"],
        ["application/json", "text/plain"],
        ["text/plain", "application/json"],
        ["text/plain"],
        [""],
        ["application/x-www-form-urlencoded"],
      )
      .map((values) => ({ values: values.map(latin1), verdict: "not_json" as const })),
  },
  {
    weight: 1,
    arbitrary: headerBytes.map((bytes) => ({ values: [bytes], verdict: "unknown" as const })),
  },
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
