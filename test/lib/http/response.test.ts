import { brotliDecompressSync, gunzipSync } from "node:zlib";
import fc from "fast-check";
import { describe, expect, it, vi } from "vitest";
import { chooseEncoding, jsonResponse } from "../../../lib/http/response.ts";

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
