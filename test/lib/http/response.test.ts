import { brotliDecompressSync, gunzipSync } from "node:zlib";
import fc from "fast-check";
import { describe, expect, it, vi } from "vitest";
import type { Compressor } from "../../../lib/http/response.ts";
import {
  chooseEncoding,
  EncodedBodies,
  jsonResponse,
  maxResponseBytes,
  zlibCompress,
} from "../../../lib/http/response.ts";

/** The JSON a base64 body compressed with `coding` holds. */
const decoded = (body: string, coding: "br" | "gzip"): unknown =>
  JSON.parse(
    (coding === "br" ? brotliDecompressSync : gunzipSync)(Buffer.from(body, "base64")).toString(),
  );
const tooLarge = expect.objectContaining({ status: 406, code: "response_too_large" }) as Error;

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
    // Tokens and q-values are case-insensitive, with optional white space.
    ["BR;Q=0, GZIP", "gzip"],
    ["br; q=0, gzip", "gzip"],
    ["br;q=0.2, gzip;q=0.2", "br"],
    ["br;q=abc, gzip;q=0.1", "gzip"],
    ["br;q=abc", undefined],
    ["br;q=0, *", "gzip"],
    ["gzip;q=0, *;q=0.5", "br"],
    ["br;level=1", "br"],
    [",gzip", "gzip"],
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
    expect(decoded(br.body, "br")).toEqual(payload);
    const gzip = jsonResponse(200, payload, "gzip");
    expect(decoded(gzip.body, "gzip")).toEqual(payload);
  });

  it("answers 406 response_too_large rather than a body Lambda would refuse, when the client takes no compression", () => {
    const payload = Array.from({ length: 60_000 }, (_, i) => ({ id: i, name: "n".repeat(100) }));
    expect(() => jsonResponse(200, payload, undefined)).toThrow(tooLarge);
    expect(jsonResponse(200, payload, "gzip").isBase64Encoded).toBe(true);
  });
});

describe("a versioned answer given again (a steady list) is not encoded again", () => {
  const list = Array.from({ length: 100 }, (_, i) => ({ id: i + 1, name: `category ${i}` }));
  /** A writer whose compressions are counted, as each container's response middleware holds one. */
  const counted = () => {
    const compress = vi.fn<Compressor>(zlibCompress);
    const bodies = new EncodedBodies(compress);
    const answer = (payload: unknown, accept: string | undefined) =>
      jsonResponse(200, payload, accept, {}, bodies);
    return { compress, answer };
  };

  it("compresses once per list and coding, and answers the same body again", () => {
    const { compress, answer } = counted();
    const first = answer(list, "gzip, br");
    const again = answer(list, "br");
    expect(compress).toHaveBeenCalledTimes(1);
    expect(again).toEqual(first);
    expect(again.headers["content-encoding"]).toBe("br");
    answer(list, "gzip");
    answer(list, "gzip");
    answer(list, undefined);
    expect(compress.mock.calls.map(([, coding]) => coding)).toEqual(["br", "gzip"]);
    expect(decoded(again.body, "br")).toEqual(list);
  });

  it("drops the old list's encodings when a new one is answered (a create moved the version)", () => {
    const { compress, answer } = counted();
    answer(list, "br");
    const grown = [...list, { id: 101, name: "new" }];
    const next = answer(grown, "br");
    expect(decoded(next.body, "br")).toEqual(grown);
    answer(list, "br");
    expect(compress).toHaveBeenCalledTimes(3);
  });

  it("encodes again when the same version comes with another list (a late category found)", () => {
    const { compress, answer } = counted();
    answer(list, undefined);
    const found = [...list, { id: 101, name: "late" }];
    expect(JSON.parse(answer(found, undefined).body)).toEqual(found);
    answer(found, "br");
    answer(found, "br");
    expect(compress).toHaveBeenCalledTimes(1);
  });

  it("serialises a versioned payload once for all its codings; an unversioned one each time", () => {
    const { answer } = counted();
    const stringify = vi.spyOn(JSON, "stringify");
    try {
      answer(list, undefined);
      answer(list, "gzip");
      answer(list, "br");
      expect(stringify).toHaveBeenCalledTimes(1);
      jsonResponse(200, list, undefined);
      jsonResponse(200, list, undefined);
      expect(stringify).toHaveBeenCalledTimes(3);
    } finally {
      stringify.mockRestore();
    }
  });
});

describe("only a body of 1 KiB or more is compressed, and only it varies by Accept-Encoding", () => {
  /** A JSON string payload whose serialised text is exactly `bytes` long. */
  const textOf = (bytes: number): string => "x".repeat(bytes - 2);

  it("compresses at 1,024 bytes, with Vary", () => {
    const response = jsonResponse(200, textOf(1024), "gzip");
    expect(response.headers).toMatchObject({ "content-encoding": "gzip", vary: "accept-encoding" });
    expect(decoded(response.body, "gzip")).toBe(textOf(1024));
  });

  it("sends 1,023 bytes as they are, without Vary", () => {
    const response = jsonResponse(200, textOf(1023), "gzip");
    expect(response.isBase64Encoded).toBe(false);
    expect(response.headers["content-encoding"]).toBeUndefined();
    expect(response.headers.vary).toBeUndefined();
    expect(response.body).toBe(JSON.stringify(textOf(1023)));
  });

  it("a large body sent to a client that takes no compression still varies by Accept-Encoding", () => {
    const response = jsonResponse(200, textOf(4096), undefined);
    expect(response.isBase64Encoded).toBe(false);
    expect(response.headers.vary).toBe("accept-encoding");
    expect(response.headers["content-encoding"]).toBeUndefined();
  });
});

describe("an answer's own headers come on top of the contract's", () => {
  it("a revalidatable answer's Cache-Control replaces no-store", () => {
    const response = jsonResponse(200, [], undefined, {
      "cache-control": "private, no-cache",
      etag: 'W/"e1.7"',
    });
    expect(response.headers).toEqual({
      "content-type": "application/json; charset=utf-8",
      "cache-control": "private, no-cache",
      "x-content-type-options": "nosniff",
      etag: 'W/"e1.7"',
    });
  });
});

describe("compression is fast first, and at full effort only when the fast body misses the 6 MB limit", () => {
  /** A compressor that returns `size(coding, effort)` bytes, recording each call. */
  const sized = (size: (coding: string, effort: number) => number) => {
    const compress = vi.fn<Compressor>((_text, coding, effort) =>
      Buffer.alloc(size(coding, effort), 1),
    );
    const answer = (accept: string) =>
      jsonResponse(200, "x".repeat(2048), accept, {}, new EncodedBodies(compress));
    return { compress, answer };
  };
  const fitsOnlyAtFullEffort = (maxBytes: number) => (_coding: string, effort: number) =>
    effort === 9 ? 10 : maxBytes;

  it("br at quality 2 and gzip at level 4 when that fits", () => {
    const { compress, answer } = sized(() => 10);
    answer("br");
    answer("gzip");
    expect(compress.mock.calls.map(([, coding, effort]) => [coding, effort])).toEqual([
      ["br", 2],
      ["gzip", 4],
    ]);
  });

  it("again at full effort (9) when the fast body's base64 is over the limit", () => {
    const { compress, answer } = sized(fitsOnlyAtFullEffort(maxResponseBytes));
    expect(answer("br").body).toBe(Buffer.alloc(10, 1).toString("base64"));
    expect(answer("gzip").body).toBe(Buffer.alloc(10, 1).toString("base64"));
    expect(compress.mock.calls.map(([, coding, effort]) => [coding, effort])).toEqual([
      ["br", 2],
      ["br", 9],
      ["gzip", 4],
      ["gzip", 9],
    ]);
  });

  it("not again when the fast body's base64 is exactly at the limit", () => {
    // base64 of 3n bytes is 4n characters; the limit is a multiple of 4.
    const atLimit = (maxResponseBytes / 4) * 3;
    const { compress, answer } = sized(fitsOnlyAtFullEffort(atLimit));
    expect(answer("br").body).toHaveLength(maxResponseBytes);
    expect(compress).toHaveBeenCalledTimes(1);
  });

  it("a full-effort body exactly at the limit is sent", () => {
    const atLimit = (maxResponseBytes / 4) * 3;
    const { compress, answer } = sized((_coding, effort) => (effort === 9 ? atLimit : atLimit + 3));
    expect(answer("gzip").body).toHaveLength(maxResponseBytes);
    expect(compress).toHaveBeenCalledTimes(2);
  });

  it("500 internal_error when even full effort misses the limit", () => {
    const { answer } = sized(() => maxResponseBytes);
    expect(() => answer("gzip")).toThrow(
      expect.objectContaining({ status: 500, code: "internal_error" }) as Error,
    );
  });

  it("a compressor's own failure is thrown each time, never kept as a body", () => {
    const compress = vi.fn<Compressor>(() => {
      throw new Error("zlib failed");
    });
    const bodies = new EncodedBodies(compress);
    const list = ["x".repeat(2048)];
    for (let i = 0; i < 2; i++) {
      expect(() => jsonResponse(200, list, "br", {}, bodies)).toThrow("zlib failed");
    }
    expect(compress).toHaveBeenCalledTimes(2);
  });

  it("a list that misses the limit fails at once when asked again: compressed once per coding", () => {
    const compress = vi.fn<Compressor>(() => Buffer.alloc(maxResponseBytes, 1));
    const bodies = new EncodedBodies(compress);
    const list = ["x".repeat(2048)];
    const answer = (payload: unknown, accept: string | undefined) => () =>
      jsonResponse(200, payload, accept, {}, bodies);
    const failure = expect.objectContaining({ status: 500, code: "internal_error" }) as Error;
    for (const accept of ["br", "br", "gzip", "br", "gzip"])
      expect(answer(list, accept)).toThrow(failure);
    expect(compress.mock.calls.map(([, coding, effort]) => [coding, effort])).toEqual([
      ["br", 2],
      ["br", 9],
      ["gzip", 4],
      ["gzip", 9],
    ]);
    // Another list (a category withdrawn, say) is tried afresh.
    expect(answer(["y".repeat(2048)], "gzip")).toThrow(failure);
    expect(compress).toHaveBeenCalledTimes(6);
  });

  it("full effort compresses smaller than fast effort, for br and gzip alike", () => {
    const list = JSON.stringify(
      Array.from({ length: 2000 }, (_, i) => ({ id: i + 1, name: `category ${i % 37} ${i}` })),
    );
    for (const coding of ["br", "gzip"] as const) {
      const fast = zlibCompress(list, coding, coding === "br" ? 2 : 4);
      const full = zlibCompress(list, coding, 9);
      expect(full.length).toBeLessThan(fast.length);
      const decoded = coding === "br" ? brotliDecompressSync(full) : gunzipSync(full);
      expect(decoded.toString()).toBe(list);
    }
  });
});

describe("an uncompressed body must fit Lambda's 6 MB limit as the runtime serialises it (quotes count twice)", () => {
  /** An array of numbers whose JSON text is exactly `bytes` long (no quotes to escape). */
  const numbersOf = (bytes: number): number[] =>
    bytes % 2 === 1
      ? Array<number>((bytes - 1) / 2).fill(1)
      : [...Array<number>((bytes - 2) / 2 - 1).fill(1), 10];

  it("sends a body whose serialised form is exactly the limit; the whole result, headers included, fits Lambda's 6 MB (6,291,456 bytes)", () => {
    const response = jsonResponse(200, numbersOf(maxResponseBytes - 2), undefined);
    expect(response.body).toHaveLength(maxResponseBytes - 2);
    expect(JSON.stringify(response.body)).toHaveLength(maxResponseBytes);
    expect(Buffer.byteLength(JSON.stringify(response))).toBeLessThanOrEqual(6 * 1024 * 1024);
  });

  it("answers 406 one byte over", () => {
    expect(() => jsonResponse(200, numbersOf(maxResponseBytes - 1), undefined)).toThrow(tooLarge);
  });

  it("a body of quotes at half the limit is 406: serialised, every byte of it is escaped", () => {
    const quotes = '"'.repeat(maxResponseBytes / 4 - 1);
    expect(Buffer.byteLength(JSON.stringify(quotes)) * 2).toBe(maxResponseBytes);
    expect(() => jsonResponse(200, quotes, undefined)).toThrow(tooLarge);
  });

  it("a body over half the limit without quotes is sent; with enough quotes it is 406", () => {
    const third = Math.floor(maxResponseBytes / 3);
    expect(jsonResponse(200, numbersOf(2 * third + 1), undefined).body).toHaveLength(2 * third + 1);
    const quoted = Array<string>(Math.floor((2 * third) / 3)).fill("");
    expect(JSON.stringify(quoted).length).toBeLessThan(maxResponseBytes);
    expect(() => jsonResponse(200, quoted, undefined)).toThrow(tooLarge);
  });
});
