import { describe, expect, it } from "vitest";
import { isJsonMediaType, maxRequestBytes, readBodyText } from "../../../lib/http/request.ts";

describe("JSON media types are application/json and application/*+json, with parameters", () => {
  it.each([
    "application/json",
    "Application/JSON",
    "application/json; charset=utf-8",
    "application/json ; charset=UTF-8",
    "application/merge-patch+json",
    "application/vnd.petstore.v1+json;q=1",
    " application/json",
    "application/problem+json",
    'application/json; charset="UTF-8"',
    "application/json;charset=utf-8;profile=x",
  ])("accepts %s", (type) => {
    expect(isJsonMediaType(type)).toBe(true);
  });

  it.each([
    "text/plain",
    "application/xml",
    "application/jsonp",
    "text/json",
    "",
    "json",
    "application/x-www-form-urlencoded",
    "xapplication/json",
    "application/json-seq",
    "application/+json",
    "application/a b+json",
    "application/json/x",
    // JSON is UTF-8 (RFC 8259 §8.1): a body labelled otherwise would be misread.
    "application/json; charset=utf-16",
    "application/json; charset=iso-8859-1",
    "application/vnd.petstore+json; profile=x; CHARSET=latin1",
    "application/json; charset=",
    "application/json; charset=utf-8x",
    "application/json; charset=xutf-8",
    "application/json; charset",
  ])("refuses %j", (type) => {
    expect(isJsonMediaType(type)).toBe(false);
  });
});

describe("a text body is passed on as sent; only base64 bodies are decoded and UTF-8-checked; both are size-checked", () => {
  it("returns plain text unchanged, white space included", () => {
    expect(readBodyText({ body: ' {"name":"dög"} ', isBase64Encoded: false })).toBe(
      ' {"name":"dög"} ',
    );
  });

  it("undoes API Gateway's base64 encoding", () => {
    const body = Buffer.from('{"name":"dög"}').toString("base64");
    expect(readBodyText({ body, isBase64Encoded: true })).toBe('{"name":"dög"}');
  });

  it("returns undefined for a missing, null or empty body", () => {
    expect(readBodyText({ isBase64Encoded: false })).toBeUndefined();
    expect(
      readBodyText({ body: null as unknown as string, isBase64Encoded: false }),
    ).toBeUndefined();
    expect(readBodyText({ body: "", isBase64Encoded: true })).toBeUndefined();
  });

  it("answers 413 above 64 KiB, counting decoded bytes", () => {
    expect(
      readBodyText({ body: "x".repeat(maxRequestBytes), isBase64Encoded: false }),
    ).toHaveLength(maxRequestBytes);
    const exact = Buffer.alloc(maxRequestBytes, "a").toString("base64");
    expect(readBodyText({ body: exact, isBase64Encoded: true })).toHaveLength(maxRequestBytes);
    expect(() =>
      readBodyText({ body: "é".repeat(maxRequestBytes / 2 + 1), isBase64Encoded: false }),
    ).toThrow(expect.objectContaining({ status: 413, code: "payload_too_large" }) as Error);
    const big = Buffer.alloc(maxRequestBytes + 1, "a").toString("base64");
    expect(() => readBodyText({ body: big, isBase64Encoded: true })).toThrow(
      expect.objectContaining({ status: 413 }) as Error,
    );
  });

  it("answers invalid_json for bytes that are not UTF-8, saying so", () => {
    const body = Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d]).toString("base64");
    expect(() => readBodyText({ body, isBase64Encoded: true })).toThrow(
      expect.objectContaining({
        status: 400,
        code: "invalid_json",
        message: "the request body is not UTF-8 text",
      }) as Error,
    );
  });
});
