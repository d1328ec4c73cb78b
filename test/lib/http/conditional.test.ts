import { describe, expect, it } from "vitest";
import { listVersion } from "../../../lib/categoryList/cache.ts";
import { entityTag, ifNoneMatchHits } from "../../../lib/http/conditional.ts";

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
