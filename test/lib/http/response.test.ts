import { brotliDecompressSync, gunzipSync } from "node:zlib";
import fc from "fast-check";
import { describe, expect, it, vi } from "vitest";
import type { Compressor } from "../../../lib/http/response.ts";
import {
  chooseEncoding,
  EncodedBodies,
  jsonResponse,
  zlibCompress,
} from "../../../lib/http/response.ts";

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

describe("a versioned answer given again (a steady list) is not encoded again", () => {
  const list = Array.from({ length: 100 }, (_, i) => ({ id: i + 1, name: `category ${i}` }));
  /** A writer whose compressions are counted, as each container's response middleware holds one. */
  const counted = () => {
    const compress = vi.fn<Compressor>(zlibCompress);
    const bodies = new EncodedBodies(compress);
    const answer = (version: string, payload: unknown, accept: string | undefined) =>
      jsonResponse(200, payload, accept, {}, { bodies, version });
    return { compress, answer };
  };

  it("compresses once per version and coding, and answers the same body again", () => {
    const { compress, answer } = counted();
    const first = answer("e1.7", list, "gzip, br");
    const again = answer("e1.7", list, "br");
    expect(compress).toHaveBeenCalledTimes(1);
    expect(again).toEqual(first);
    expect(again.headers["content-encoding"]).toBe("br");
    answer("e1.7", list, "gzip");
    answer("e1.7", list, "gzip");
    answer("e1.7", list, undefined);
    expect(compress.mock.calls.map(([, coding]) => coding)).toEqual(["br", "gzip"]);
    expect(JSON.parse(brotliDecompressSync(Buffer.from(again.body, "base64")).toString())).toEqual(
      list,
    );
  });

  it("drops the old version's encodings when a new version is answered", () => {
    const { compress, answer } = counted();
    answer("e1.7", list, "br");
    const grown = [...list, { id: 101, name: "new" }];
    const next = answer("e1.8", grown, "br");
    expect(JSON.parse(brotliDecompressSync(Buffer.from(next.body, "base64")).toString())).toEqual(
      grown,
    );
    answer("e1.7", list, "br");
    expect(compress).toHaveBeenCalledTimes(3);
  });

  it("encodes again when the same version comes with other content (a late category found)", () => {
    const { compress, answer } = counted();
    answer("e1.7", list, undefined);
    const found = [...list, { id: 101, name: "late" }];
    expect(JSON.parse(answer("e1.7", found, undefined).body)).toEqual(found);
    answer("e1.7", found, "br");
    answer("e1.7", found, "br");
    expect(compress).toHaveBeenCalledTimes(1);
  });

  it("serialises a versioned payload once for all its codings; an unversioned one each time", () => {
    const { answer } = counted();
    const stringify = vi.spyOn(JSON, "stringify");
    try {
      answer("e1.7", list, undefined);
      answer("e1.7", list, "gzip");
      answer("e1.7", list, "br");
      expect(stringify).toHaveBeenCalledTimes(1);
      jsonResponse(200, list, undefined);
      jsonResponse(200, list, undefined);
      expect(stringify).toHaveBeenCalledTimes(3);
    } finally {
      stringify.mockRestore();
    }
  });
});
