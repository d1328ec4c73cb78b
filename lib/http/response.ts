/**
 * Writing a successful answer: the contract's headers, `Accept-Encoding` negotiation and
 * compression, and Lambda's 6 MB response limit. Used by the response middleware
 * (lib/middleware.ts), so handlers never deal with any of it.
 */
import { brotliCompressSync, constants as zlib, gzipSync } from "node:zlib";
import { errors } from "../errors.ts";
import type { HttpResponse } from "./message.ts";
import { contractHeaders } from "./message.ts";

/** Lambda's synchronous response limit is 6 MB for the whole serialized result, body included. */
export const maxResponseBytes = 6 * 1024 * 1024 - 16 * 1024;
/** Below this a compressed body saves too little to be worth the CPU. */
const compressFromBytes = 1024;

/**
 * The JSON of payloads answered before, by identity: a list served from an unchanged cache is the
 * same (never mutated) array each time, so a 10,000-category list is serialised once per version,
 * not on every answer (about 20 ms a time at 512 MB). Weak: an old version's text goes with it.
 */
const serialized = new WeakMap<object, string>();

function jsonText(payload: unknown): string {
  if (typeof payload !== "object" || payload === null) return JSON.stringify(payload);
  let text = serialized.get(payload);
  if (text === undefined) {
    text = JSON.stringify(payload);
    serialized.set(payload, text);
  }
  return text;
}

export function jsonResponse(
  statusCode: number,
  payload: unknown,
  acceptEncoding: string | undefined,
  extraHeaders: Readonly<Record<string, string>> = {},
): HttpResponse {
  const text = jsonText(payload);
  const headers: Record<string, string> = { ...contractHeaders, ...extraHeaders };
  const textBytes = Buffer.byteLength(text);
  if (textBytes >= compressFromBytes) {
    headers.vary = "accept-encoding";
    const encoding = chooseEncoding(acceptEncoding);
    if (encoding) return compressed(statusCode, text, encoding, headers);
  }
  // The runtime serializes the result as JSON, so quotes in the body count twice.
  if (
    textBytes > maxResponseBytes ||
    (textBytes * 2 > maxResponseBytes && serializedSize(text) > maxResponseBytes)
  ) {
    throw errors.responseTooLarge();
  }
  return { statusCode, headers, body: text, isBase64Encoded: false };
}

/**
 * Fast settings first (measured on 50,000 categories: brotli quality 2 takes 233 ms where quality
 * 5 takes 529 ms, for a 10% larger result); only a body that would then miss Lambda's 6 MB limit
 * is compressed again at full effort, which stretches the limit to the most categories.
 */
const fastEffort = { br: 2, gzip: 4 } as const;
const fullEffort = { br: 9, gzip: 9 } as const;

function compressed(
  statusCode: number,
  text: string,
  encoding: "br" | "gzip",
  headers: Record<string, string>,
): HttpResponse {
  let body = compress(text, encoding, fastEffort[encoding]);
  if (body.length > maxResponseBytes) body = compress(text, encoding, fullEffort[encoding]);
  if (body.length > maxResponseBytes) {
    throw errors.internal(new Error(`the ${encoding} body is over 6 MB even at full effort`));
  }
  return {
    statusCode,
    headers: { ...headers, "content-encoding": encoding },
    body,
    isBase64Encoded: true,
  };
}

function compress(text: string, encoding: "br" | "gzip", effort: number): string {
  const bytes =
    encoding === "br"
      ? brotliCompressSync(text, {
          params: {
            [zlib.BROTLI_PARAM_QUALITY]: effort,
            [zlib.BROTLI_PARAM_SIZE_HINT]: Buffer.byteLength(text),
          },
        })
      : gzipSync(text, { level: effort });
  return bytes.toString("base64");
}

function serializedSize(text: string): number {
  return Buffer.byteLength(JSON.stringify(text));
}

/**
 * Picks br or gzip from Accept-Encoding (RFC 9110 §12.5.3), honouring q=0 and `*`.
 * Hand-written: the `negotiator` package is CommonJS and does far more than these two tokens.
 */
export function chooseEncoding(acceptEncoding: string | undefined): "br" | "gzip" | undefined {
  if (!acceptEncoding) return undefined;
  const weights = new Map<string, number>();
  for (const part of acceptEncoding.split(",")) {
    const [token = "", ...params] = part.split(";").map((piece) => piece.trim().toLowerCase());
    const q = params.find((param) => param.startsWith("q="));
    const weight = q === undefined ? 1 : Number(q.slice(2));
    if (token) weights.set(token, Number.isFinite(weight) ? weight : 0);
  }
  const weightOf = (token: string): number => weights.get(token) ?? weights.get("*") ?? 0;
  const br = weightOf("br");
  const gzip = weightOf("gzip");
  if (br <= 0 && gzip <= 0) return undefined;
  return br >= gzip ? "br" : "gzip";
}
