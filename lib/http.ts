/**
 * The HTTP edge of the service: reading API Gateway HTTP API (payload 2.0) requests, and writing
 * every response, success or Error, with the contract's headers. `toErrorResponse` is the one
 * place where a thrown error becomes the Error shape.
 */
import { isUtf8 } from "node:buffer";
import { brotliCompressSync, constants as zlib, gzipSync } from "node:zlib";
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import { ApiError, errors, StoreUnavailableError } from "./errors.ts";

export type HttpEvent = APIGatewayProxyEventV2;
export type HttpResponse = APIGatewayProxyStructuredResultV2 & {
  statusCode: number;
  headers: Record<string, string>;
  body: string;
};

export const maxRequestBytes = 64 * 1024;
/** Lambda's synchronous response limit is 6 MB for the whole serialized result, body included. */
export const maxResponseBytes = 6 * 1024 * 1024 - 16 * 1024;
/** Below this a compressed body saves too little to be worth the CPU. */
const compressFromBytes = 1024;

const contractHeaders = {
  "content-type": "application/json; charset=utf-8",
  "cache-control": "no-store",
  "x-content-type-options": "nosniff",
} as const;

/** Header lookup that tolerates hand-written events; API Gateway itself sends lower-case names. */
export function header(event: Pick<HttpEvent, "headers">, name: string): string | undefined {
  const headers = event.headers as Record<string, string | undefined> | undefined;
  if (!headers) return undefined;
  const exact = headers[name];
  if (exact !== undefined) return exact;
  for (const [key, value] of Object.entries(headers)) {
    if (key.toLowerCase() === name) return value;
  }
  return undefined;
}

/** `application/json` or `application/*+json`, any parameters (e.g. charset=utf-8) allowed. */
export function isJsonMediaType(contentType: string): boolean {
  const essence = contentType.split(";", 1)[0]?.trim().toLowerCase() ?? "";
  return /^application\/(?:[a-z0-9!#$&^_.-]+\+)?json$/.test(essence);
}

/**
 * The request body as text: base64 undone, size and UTF-8 checked. Returns undefined for a
 * missing or empty body.
 */
export function readBodyText(
  event: Pick<HttpEvent, "body" | "isBase64Encoded">,
): string | undefined {
  // Hand-written events may carry `"body": null`; API Gateway leaves a missing body out.
  if (typeof event.body !== "string" || event.body === "") return undefined;
  const bytes = event.isBase64Encoded
    ? Buffer.from(event.body, "base64")
    : Buffer.from(event.body, "utf8");
  if (bytes.length > maxRequestBytes) throw errors.payloadTooLarge(maxRequestBytes);
  if (event.isBase64Encoded && !isUtf8(bytes)) {
    throw errors.invalidJson("the request body is not UTF-8 text");
  }
  return event.isBase64Encoded ? bytes.toString("utf8") : event.body;
}

export function jsonResponse(
  statusCode: number,
  payload: unknown,
  acceptEncoding: string | undefined,
  extraHeaders: Readonly<Record<string, string>> = {},
): HttpResponse {
  const text = JSON.stringify(payload);
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

export interface ErrorOutcome {
  readonly response: HttpResponse;
  readonly error: ApiError;
}

/**
 * Turns anything thrown while serving a request into the contract's Error shape. `credential` is
 * the token the request presented, if any: a message that would repeat it (say, a key pasted as
 * a field name) shows "[redacted]" instead, so no answer ever carries a key.
 */
export function toErrorResponse(thrown: unknown, credential?: string): ErrorOutcome {
  const error = toApiError(thrown);
  const message = credential ? redact(error.message, credential) : error.message;
  const body = { code: error.code, message, status: error.status };
  return {
    error,
    response: {
      statusCode: error.status,
      headers: { ...contractHeaders, ...error.headers },
      body: JSON.stringify(body),
      isBase64Encoded: false,
    },
  };
}

/** Removes the credential, or any 8-character-or-longer start of it (messages cut long text). */
function redact(message: string, credential: string): string {
  for (let length = credential.length; length >= 8; length--) {
    const part = credential.slice(0, length);
    if (message.includes(part)) return message.replaceAll(part, "[redacted]");
  }
  return message;
}

function toApiError(thrown: unknown): ApiError {
  if (thrown instanceof ApiError) return thrown;
  if (thrown instanceof StoreUnavailableError) return errors.serviceUnavailable();
  if (thrown instanceof Error && thrown.name === "TimeoutError") return errors.serviceUnavailable();
  const middyError = asMiddyHttpError(thrown);
  if (middyError) return middyError;
  return errors.internal(thrown);
}

/** @middy/http-json-body-parser throws 415/422 http-errors; the contract answers 400 and 415. */
function asMiddyHttpError(thrown: unknown): ApiError | undefined {
  if (!(thrown instanceof Error) || !("statusCode" in thrown)) return undefined;
  const cause = thrown.cause as { data?: unknown } | undefined;
  switch (thrown.statusCode) {
    case 415:
      return errors.unsupportedMediaType();
    case 413:
      return errors.payloadTooLarge(maxRequestBytes);
    case 422:
      return thrown.message.startsWith("Forbidden key")
        ? errors.invalidBody(
            `the field ${JSON.stringify(String(cause?.data))} is not accepted: only 'name' and 'description' are`,
          )
        : errors.invalidJson();
    default:
      return undefined;
  }
}
