/**
 * The JSON request body, in the contract's order of checks: media type (415), size (413) and
 * UTF-8 here; then @middy/http-json-body-parser parses (with its `__proto__` guard); its errors
 * become the contract's in `fromBodyParserError`, matched on what middy documents for its errors
 * (the HTTP status and `cause.package`), never on message text.
 */
import type { MiddlewareObj } from "@middy/core";
import httpJsonBodyParser from "@middy/http-json-body-parser";
import type { ApiError } from "../errors.ts";
import { errors } from "../errors.ts";
import type { HttpEvent } from "./message.ts";
import { jsonErrorPlace } from "./jsonPosition.ts";
import { header } from "./message.ts";
import { isJsonMediaType, readBodyText } from "./request.ts";

export const bodyParserPackage = "@middy/http-json-body-parser";

/** The resource's fields as its messages name them (lib/category.ts, `categoryBodyFields`). */
export interface BodyFields {
  /** What a body must carry at least: "a 'name'". */
  readonly required: string;
  /** Every field a body may carry: "'name' and 'description'". */
  readonly accepted: string;
}

/**
 * A POST with no Content-Type is read as JSON (contract), and a base64 body (API Gateway encodes
 * bodies it does not consider text) is decoded first, so the parser always receives checked text.
 */
export function jsonRequestBody(fields: BodyFields): MiddlewareObj<HttpEvent>[] {
  const checks: MiddlewareObj<HttpEvent> = {
    before: (request) => {
      const contentType = header(request.event, "content-type");
      if (contentType !== undefined && !isJsonMediaType(contentType)) {
        throw errors.unsupportedMediaType();
      }
      // A compressed body would be read as text (and fail as JSON, or pass mislabelled): no
      // content coding is accepted (RFC 9110 §15.5.16 answers it with 415).
      const coding = header(request.event, "content-encoding")?.trim().toLowerCase();
      if (coding && coding !== "identity") throw errors.unsupportedContentEncoding();
      const text = readBodyText(request.event);
      if (text === undefined || text.trim() === "") {
        throw errors.invalidBody(
          `the request body is missing: send a JSON object with ${fields.required}`,
        );
      }
      refuseDeepNesting(text);
      request.event.body = text;
      request.event.isBase64Encoded = false;
    },
  };
  const parser = httpJsonBodyParser({ disableContentTypeCheck: true });
  // The parser's own errors become the contract's here, where the body text is at hand: a syntax
  // error's message says where the body stops being JSON.
  const parse: MiddlewareObj<HttpEvent> = {
    before: async (request) => {
      const text = request.event.body ?? "";
      try {
        await parser.before?.(request);
      } catch (thrown) {
        throw fromBodyParserError(thrown, fields, text) ?? thrown;
      }
    },
  };
  return [checks, parse];
}

/** invalid_json, saying where `text` (when known) stops being JSON. */
function malformed(text: string | undefined): ApiError {
  const place = text === undefined ? undefined : jsonErrorPlace(text);
  return place === undefined
    ? errors.invalidJson()
    : errors.invalidJson(`the request body is not well-formed JSON: ${place}`);
}

/**
 * The parser throws http-errors (`statusCode`) whose `cause.package` names it: 415 for the media
 * type, 422 for a body it refuses. A 422 carries the JSON.parse failure as `cause.message`, or, for
 * a `__proto__` / `constructor` key, that key alone as `cause.data`. Pinned against the installed
 * version by test/lib/jsonBody.test.ts. With the body's `text`, a syntax error says where.
 */
export function fromBodyParserError(
  thrown: unknown,
  fields: BodyFields,
  text?: string,
): ApiError | undefined {
  if (!(thrown instanceof Error)) return undefined;
  const { statusCode } = thrown as { statusCode?: unknown };
  const cause = thrown.cause as
    { package?: unknown; data?: unknown; message?: unknown } | null | undefined;
  if (cause?.package !== bodyParserPackage) return undefined;
  if (statusCode === 415) return errors.unsupportedMediaType();
  if (statusCode !== 422) return undefined;
  const refusedKey = typeof cause.message === "string" ? undefined : cause.data;
  return typeof refusedKey === "string"
    ? errors.invalidBody(
        `the field ${JSON.stringify(refusedKey)} is not accepted: only ${fields.accepted} are`,
      )
    : malformed(text);
}

/** A resource's body (a NewCategory) is a flat object; anything nested deeper cannot be one. */
const maxJsonDepth = 64;

/**
 * The parser parses with a reviver (its `__proto__` guard), which recurses and overflows the stack
 * near 2,300 levels of nesting. Deeper bodies are settled here instead: plain JSON.parse (no
 * recursion limit) tells malformed JSON (invalid_json) from well-formed JSON that is no
 * resource body (invalid_body), keeping the contract's order of checks.
 */
function refuseDeepNesting(text: string): void {
  if (jsonDepth(text) <= maxJsonDepth) return;
  try {
    JSON.parse(text);
  } catch {
    throw malformed(text);
  }
  throw errors.invalidBody(
    `the body nests deeper than ${maxJsonDepth} levels; send a flat JSON object`,
  );
}

/** The deepest bracket nesting outside strings; a linear scan, cheap for a 64 KiB body. */
export function jsonDepth(text: string): number {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // backslash: skip the escaped character
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) deepest = Math.max(deepest, ++depth);
    else if (c === 0x5d || c === 0x7d) depth--;
  }
  return deepest;
}
