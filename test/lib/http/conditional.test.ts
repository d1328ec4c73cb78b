import { describe, expect, it } from "vitest";
import { listVersion } from "../../../lib/categoryList/cache.ts";
import {
  entityTag,
  ifNoneMatchHits,
  isNotModified,
  notModifiedResponse,
  validatorHeaders,
} from "../../../lib/http/conditional.ts";

const v7 = { epoch: "m1", version: 7 };
const listETag = (version: typeof v7, coding: "br" | "gzip" | undefined): string =>
  entityTag(listVersion(version), coding);

describe("the list's ETag names the store version and the content coding", () => {
  it("differs per coding and per version, and is weak", () => {
    const tags = [listETag(v7, "br"), listETag(v7, "gzip"), listETag(v7, undefined)];
    expect(new Set(tags).size).toBe(3);
    expect(listETag(v7, undefined)).toBe('W/"m1.7"');
    expect(listETag({ ...v7, version: 8 }, "br")).not.toBe(listETag(v7, "br"));
    expect(listETag({ ...v7, epoch: "m2" }, "br")).not.toBe(listETag(v7, "br"));
  });
});

describe("If-None-Match uses weak comparison over a list of tags (RFC 9110 §13.1.2)", () => {
  const tag = listETag(v7, "gzip");
  it.each([
    ['W/"m1.7-gzip"', true],
    ['"m1.7-gzip"', true],
    ['"other", W/"m1.7-gzip"', true],
    ['"a,b",W/"m1.7-gzip"', true],
    ["*", true],
    [" * ", true],
    ['W/"m1.7-br"', false],
    ['W/"m1.7"', false],
    ['W/"m1.6-gzip"', false],
    ["m1.7-gzip", false],
    ["", false],
  ])("%j → %s", (header, hit) => {
    expect(ifNoneMatchHits(header, tag)).toBe(hit);
  });

  it("no header never hits", () => {
    expect(ifNoneMatchHits(undefined, tag)).toBe(false);
  });
});

describe("a versioned answer is cacheable but must be revalidated, and varies by coding", () => {
  it("carries the tag of the negotiated coding, private no-cache and Vary", () => {
    expect(validatorHeaders("gzip", "e1.7")).toEqual({
      etag: 'W/"e1.7-gzip"',
      "cache-control": "private, no-cache",
      vary: "accept-encoding",
    });
    expect(validatorHeaders(undefined, "e1.7").etag).toBe('W/"e1.7"');
  });
});

describe("If-None-Match is compared with the tag of the coding the answer would be sent in", () => {
  const event = (headers: Record<string, string>) => ({ headers });
  it("hits for the current tag of the request's own coding", () => {
    expect(
      isNotModified(event({ "accept-encoding": "gzip", "if-none-match": 'W/"e1.7-gzip"' }), "e1.7"),
    ).toBe(true);
    expect(isNotModified(event({ "if-none-match": 'W/"e1.7"' }), "e1.7")).toBe(true);
  });

  it("misses for another coding's tag, another version, or no If-None-Match", () => {
    expect(
      isNotModified(event({ "accept-encoding": "br", "if-none-match": 'W/"e1.7-gzip"' }), "e1.7"),
    ).toBe(false);
    expect(isNotModified(event({ "if-none-match": 'W/"e1.6"' }), "e1.7")).toBe(false);
    expect(isNotModified(event({ "accept-encoding": "gzip" }), "e1.7")).toBe(false);
  });

  it("compares a strong tag as well, opaque characters included", () => {
    expect(ifNoneMatchHits('"x!#~"', '"x!#~"')).toBe(true);
    expect(ifNoneMatchHits('"x!#~"', 'W/"x!#~"')).toBe(true);
    expect(ifNoneMatchHits('W/"W/x"', 'W/"W/x"')).toBe(true);
    expect(ifNoneMatchHits('"a b"', '"a b"')).toBe(false);
    expect(ifNoneMatchHits('"W/x"', '"W/x"')).toBe(true);
    expect(ifNoneMatchHits('"x"', '"W/x"')).toBe(false);
  });

  it("an empty opaque tag is a tag too (RFC 9110: opaque-tag = DQUOTE *etagc DQUOTE)", () => {
    expect(ifNoneMatchHits('W/""', 'W/""')).toBe(true);
    expect(ifNoneMatchHits('"a", ""', '""')).toBe(true);
  });
});

describe("304 has the validator headers and no body, so no Content-Type (RFC 9110 §15.4.5)", () => {
  it("is exactly the status, nosniff and the validators", () => {
    const validators = validatorHeaders("br", "e1.7");
    expect(notModifiedResponse(validators)).toEqual({
      statusCode: 304,
      headers: { "x-content-type-options": "nosniff", ...validators },
      body: "",
      isBase64Encoded: false,
    });
  });
});
