/**
 * Writing a successful answer: the contract's headers, `Accept-Encoding` negotiation and
 * compression, and Lambda's 6 MB response limit. Used by the response middleware
 * (lib/middleware.ts), so handlers never deal with any of it.
 */
import { brotliCompressSync, constants as zlib, gzipSync } from "node:zlib";
import { ApiError, errors } from "../errors.ts";
import type { HttpResponse } from "./message.ts";
import { contractHeaders } from "./message.ts";

/** Lambda's synchronous response limit is 6 MB for the whole serialized result, body included. */
export const maxResponseBytes = 6 * 1024 * 1024 - 16 * 1024;
/** Below this a compressed body saves too little to be worth the CPU. */
const compressFromBytes = 1024;

export type ContentCoding = "br" | "gzip";

/** Compresses text at an effort level: node:zlib (`zlibCompress`), or a test's counting one. */
export type Compressor = (text: string, coding: ContentCoding, effort: number) => Buffer;

/** A body as it is sent, before the headers: text, or base64 of the compressed bytes. */
interface EncodedBody {
  readonly body: string;
  /** Set when compressed: the Content-Encoding. */
  readonly coding: ContentCoding | undefined;
  /** Large enough to be compressed when asked: the answer varies by Accept-Encoding. */
  readonly varies: boolean;
}

/**
 * The encoded bodies of the last versioned answer, one per coding (identity, gzip, br: at most
 * three), held for the container's life by the response middleware (lib/middleware.ts). A steady
 * list is answered with the very same (never mutated) array, so it is serialised and compressed
 * once, not on every request (10,000 categories in br: 43 ms a time at 1,024 MB). Kept by that
 * array's identity, not by the version: a list may find a late category at an unchanged version
 * (lib/categoryList/cache.ts, `listVersion`), and that is a new array. Another payload replaces
 * the lot: the old version's encodings go with it. A coding that cannot fit Lambda's limit is kept
 * too, as its error: a list too large even compressed fails at once on every later request
 * rather than spend the compressions again (br at full effort took 5 s for a 2,386-category list
 * of long random CJK text), until the list changes.
 */
export class EncodedBodies {
  readonly #compress: Compressor;
  #payload: unknown;
  #text: string | undefined;
  readonly #bodies = new Map<ContentCoding | "identity", EncodedBody | ApiError>();

  constructor(compress: Compressor = zlibCompress) {
    this.#compress = compress;
  }

  of(payload: unknown, coding: ContentCoding | undefined): EncodedBody {
    if (payload !== this.#payload) {
      this.#bodies.clear();
      [this.#payload, this.#text] = [payload, undefined];
    }
    let encoded = this.#bodies.get(coding ?? "identity");
    if (encoded === undefined) {
      this.#text ??= JSON.stringify(payload);
      try {
        encoded = encodeBody(this.#text, coding, this.#compress);
      } catch (error) {
        if (!(error instanceof ApiError)) throw error;
        encoded = error;
      }
      this.#bodies.set(coding ?? "identity", encoded);
    }
    if (encoded instanceof ApiError) throw encoded;
    return encoded;
  }
}

/**
 * A JSON answer. With `kept` (a versioned answer, the list), its body comes from and goes to
 * those bodies; without, it is encoded afresh.
 */
export function jsonResponse(
  statusCode: number,
  payload: unknown,
  acceptEncoding: string | undefined,
  extraHeaders: Readonly<Record<string, string>> = {},
  kept?: EncodedBodies,
): HttpResponse {
  const coding = chooseEncoding(acceptEncoding);
  const encoded = kept
    ? kept.of(payload, coding)
    : encodeBody(JSON.stringify(payload), coding, zlibCompress);
  const headers: Record<string, string> = { ...contractHeaders, ...extraHeaders };
  if (encoded.varies) headers.vary = "accept-encoding";
  if (encoded.coding) headers["content-encoding"] = encoded.coding;
  return { statusCode, headers, body: encoded.body, isBase64Encoded: encoded.coding !== undefined };
}

function encodeBody(
  text: string,
  coding: ContentCoding | undefined,
  compress: Compressor,
): EncodedBody {
  const textBytes = Buffer.byteLength(text);
  const varies = textBytes >= compressFromBytes;
  if (varies && coding) return { body: compressed(text, coding, compress), coding, varies };
  // The runtime serializes the result as JSON, so quotes in the body count twice. Serialized, a
  // body is at most twice its bytes and 2 (all quotes and backslashes, and the enclosing
  // quotes): below that bound it fits, and is not serialized again to be measured.
  if (textBytes * 2 + 2 > maxResponseBytes && serializedSize(text) > maxResponseBytes) {
    throw errors.responseTooLarge();
  }
  return { body: text, coding: undefined, varies };
}

/**
 * Fast settings first (measured on 50,000 categories: brotli quality 2 takes 233 ms where quality
 * 5 takes 529 ms, for a 10% larger result); only a body that would then miss Lambda's 6 MB limit
 * is compressed again at full effort, which stretches the limit to the most categories.
 */
const fastEffort = { br: 2, gzip: 4 } as const;
const fullEffort = { br: 9, gzip: 9 } as const;

/** The base64 of `text` compressed, within Lambda's 6 MB limit. */
function compressed(text: string, coding: ContentCoding, compress: Compressor): string {
  let body = compress(text, coding, fastEffort[coding]).toString("base64");
  if (body.length > maxResponseBytes) {
    body = compress(text, coding, fullEffort[coding]).toString("base64");
  }
  if (body.length > maxResponseBytes) {
    throw errors.internal(new Error(`the ${coding} body is over 6 MB even at full effort`));
  }
  return body;
}

export function zlibCompress(text: string, coding: ContentCoding, effort: number): Buffer {
  return coding === "br"
    ? brotliCompressSync(text, {
        params: {
          [zlib.BROTLI_PARAM_QUALITY]: effort,
          [zlib.BROTLI_PARAM_SIZE_HINT]: Buffer.byteLength(text),
        },
      })
    : gzipSync(text, { level: effort });
}

function serializedSize(text: string): number {
  return Buffer.byteLength(JSON.stringify(text));
}

/**
 * Picks br or gzip from Accept-Encoding (RFC 9110 §12.5.3), honouring q=0 and `*`.
 * Hand-written: the `negotiator` package is CommonJS and does far more than these two tokens.
 */
export function chooseEncoding(acceptEncoding: string | undefined): ContentCoding | undefined {
  if (!acceptEncoding) return undefined;
  const weights = new Map<string, number>();
  for (const part of acceptEncoding.split(",")) {
    // split returns at least one element; an empty token (",gzip") is never asked for.
    const [token, ...params] = part.split(";").map((piece) => piece.trim().toLowerCase()) as [
      string,
      ...string[],
    ];
    const q = params.find((param) => param.startsWith("q="));
    const weight = q === undefined ? 1 : Number(q.slice(2));
    weights.set(token, Number.isFinite(weight) ? weight : 0);
  }
  const weightOf = (token: string): number => weights.get(token) ?? weights.get("*") ?? 0;
  const br = weightOf("br");
  const gzip = weightOf("gzip");
  if (br <= 0 && gzip <= 0) return undefined;
  return br >= gzip ? "br" : "gzip";
}
