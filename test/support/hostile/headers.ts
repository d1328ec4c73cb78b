/**
 * The other request headers a hostile client sends: Content-Types that are or are not JSON (and
 * the header's spellings), extra headers the service never reads, Accept-Encoding and
 * Idempotency-Key values; and `setHeader`, which puts one of them on an event.
 */
import fc from "fast-check";
import { stringOf } from "./characters.ts";

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
