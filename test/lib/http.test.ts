import { brotliDecompressSync, gunzipSync } from "node:zlib";
import fc from "fast-check";
import { describe, expect, it, vi } from "vitest";
import { errors, StoreUnavailableError } from "../../lib/errors.ts";
import { toErrorResponse } from "../../lib/http/errorResponse.ts";
import { header } from "../../lib/http/message.ts";
import { isJsonMediaType, maxRequestBytes, readBodyText } from "../../lib/http/request.ts";
import { chooseEncoding, jsonResponse } from "../../lib/http/response.ts";

describe("JSON media types are application/json and application/*+json, with parameters", () => {
  it.each([
    "application/json",
    "Application/JSON",
    "application/json; charset=utf-8",
    "application/json ; charset=UTF-8",
    "application/merge-patch+json",
    "application/vnd.petstore.v1+json;q=1",
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
  ])("refuses %j", (type) => {
    expect(isJsonMediaType(type)).toBe(false);
  });
});

describe("headers are read case-insensitively", () => {
  it("finds API Gateway's lower-case names and hand-written mixed case alike", () => {
    expect(header({ headers: { authorization: "a" } }, "authorization")).toBe("a");
    expect(header({ headers: { Authorization: "b" } }, "authorization")).toBe("b");
    expect(header({ headers: {} }, "authorization")).toBeUndefined();
  });
});

describe("request bodies are decoded, size-checked and UTF-8-checked", () => {
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
    expect(() =>
      readBodyText({ body: "é".repeat(maxRequestBytes / 2 + 1), isBase64Encoded: false }),
    ).toThrow(expect.objectContaining({ status: 413, code: "payload_too_large" }) as Error);
    const big = Buffer.alloc(maxRequestBytes + 1, "a").toString("base64");
    expect(() => readBodyText({ body: big, isBase64Encoded: true })).toThrow(
      expect.objectContaining({ status: 413 }) as Error,
    );
  });

  it("answers invalid_json for bytes that are not UTF-8", () => {
    const body = Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d]).toString("base64");
    expect(() => readBodyText({ body, isBase64Encoded: true })).toThrow(
      expect.objectContaining({ code: "invalid_json" }) as Error,
    );
  });
});

describe("Accept-Encoding chooses br, then gzip, honouring q-values", () => {
  it.each([
    [undefined, undefined],
    ["", undefined],
    ["identity", undefined],
    ["gzip", "gzip"],
    ["gzip, deflate, br", "br"],
    ["br;q=0.5, gzip;q=0.8", "gzip"],
    ["br;q=0, gzip", "gzip"],
    ["*", "br"],
    ["*;q=0", undefined],
    ["gzip;q=0, br;q=0", undefined],
  ])("%j → %j", (accept, expected) => {
    expect(chooseEncoding(accept)).toBe(expected);
  });

  it("never throws on arbitrary header values", () => {
    fc.assert(
      fc.property(fc.string(), (value) =>
        ["br", "gzip", undefined].includes(chooseEncoding(value)),
      ),
      { numRuns: 2000 },
    );
  });
});

describe("every response carries the contract's headers", () => {
  it("success: JSON with charset, no-store, nosniff", () => {
    const response = jsonResponse(200, [], undefined);
    expect(response.headers).toMatchObject({
      "content-type": "application/json; charset=utf-8",
      "cache-control": "no-store",
      "x-content-type-options": "nosniff",
    });
    expect(response.body).toBe("[]");
  });

  it("compresses large bodies when the client accepts it, and they decode to the same JSON", () => {
    const payload = Array.from({ length: 500 }, (_, i) => ({ id: i + 1, name: `category ${i}` }));
    const br = jsonResponse(200, payload, "br");
    expect(br.isBase64Encoded).toBe(true);
    expect(br.headers["content-encoding"]).toBe("br");
    expect(br.headers.vary).toBe("accept-encoding");
    expect(JSON.parse(brotliDecompressSync(Buffer.from(br.body, "base64")).toString())).toEqual(
      payload,
    );
    const gzip = jsonResponse(200, payload, "gzip");
    expect(JSON.parse(gunzipSync(Buffer.from(gzip.body, "base64")).toString())).toEqual(payload);
  });

  it("leaves small bodies uncompressed", () => {
    expect(jsonResponse(201, { id: 1, name: "dog" }, "gzip").isBase64Encoded).toBe(false);
  });

  it("answers 406 response_too_large rather than a body Lambda would refuse, when the client takes no compression", () => {
    const payload = Array.from({ length: 60_000 }, (_, i) => ({ id: i, name: "n".repeat(100) }));
    expect(() => jsonResponse(200, payload, undefined)).toThrow(
      expect.objectContaining({ code: "response_too_large", status: 406 }) as Error,
    );
    expect(jsonResponse(200, payload, "gzip").isBase64Encoded).toBe(true);
  });
});

describe("a payload answered again (an unchanged cached list) is serialised once", () => {
  it("reuses the JSON of the same payload object, and serialises a new one afresh", () => {
    const list = [{ id: 1, name: "Dogs" }];
    const stringify = vi.spyOn(JSON, "stringify");
    try {
      const first = jsonResponse(200, list, undefined);
      const again = jsonResponse(200, list, "gzip");
      expect(stringify).toHaveBeenCalledTimes(1);
      expect(again.body).toBe(first.body);
      const changed = [...list, { id: 2, name: "Cats" }];
      expect(JSON.parse(jsonResponse(200, changed, undefined).body)).toEqual(changed);
      expect(stringify).toHaveBeenCalledTimes(2);
    } finally {
      stringify.mockRestore();
    }
  });
});

describe("every error becomes exactly {code, message, status} in one place", () => {
  const shapeOf = (thrown: unknown) => {
    const { response } = toErrorResponse(thrown);
    expect(response).toBeApiError(response.statusCode);
    const body = JSON.parse(response.body) as Record<string, unknown>;
    return {
      status: response.statusCode,
      code: body.code,
      message: body.message,
      headers: response.headers,
    };
  };

  it("keeps an ApiError's status, code and headers", () => {
    expect(shapeOf(errors.methodNotAllowed("/v1/categories", ["GET", "POST"]))).toMatchObject({
      status: 405,
      code: "method_not_allowed",
      headers: { allow: "GET, POST" },
    });
  });

  it("maps the JSON body parser's 422s to 400 invalid_json, and its forbidden keys to invalid_body", () => {
    const parser = "@middy/http-json-body-parser";
    const malformed = Object.assign(new Error("Invalid or malformed JSON was provided"), {
      statusCode: 422,
      cause: { package: parser },
    });
    expect(shapeOf(malformed)).toMatchObject({ status: 400, code: "invalid_json" });
    const forbidden = Object.assign(new Error("Forbidden key in JSON body"), {
      statusCode: 422,
      cause: { package: parser, data: "__proto__" },
    });
    expect(shapeOf(forbidden)).toMatchObject({ status: 400, code: "invalid_body" });
    const unsupported = Object.assign(new Error("x"), {
      statusCode: 415,
      cause: { package: parser },
    });
    expect(shapeOf(unsupported)).toMatchObject({
      status: 415,
      code: "unsupported_media_type",
    });
  });

  it("never repeats the presented key, even when a message would quote it", () => {
    const key = "petstore_dev-key-0123";
    const { response } = toErrorResponse(errors.invalidBody(`unknown field "${key}"`), key);
    expect(response.body).not.toContain(key);
    expect(response.body).toContain("[redacted]");
  });

  it("turns a store that stayed unavailable into 503 with Retry-After", () => {
    expect(shapeOf(new StoreUnavailableError("throttled"))).toMatchObject({
      status: 503,
      code: "service_unavailable",
      headers: { "retry-after": "1" },
    });
  });

  it("hides anything unexpected behind 500 internal_error, without its message or stack", () => {
    const secret = new Error(
      "ResourceNotFoundException: table petstore-production at arn:aws:dynamodb:...",
    );
    const shaped = shapeOf(secret);
    expect(shaped).toMatchObject({ status: 500, code: "internal_error" });
    expect(String(shaped.message)).not.toMatch(/petstore-production|arn:|at /);
    expect(shapeOf("a thrown string")).toMatchObject({ status: 500 });
  });
});
