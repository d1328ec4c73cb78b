/**
 * Conditional GETs (contract "Responses", RFC 9110 §8.8.3, §13.1.2 and §15.4.5): the validator
 * headers of a versioned answer, the If-None-Match check, and the 304. A version is the reply's
 * own (`Reply.version`, lib/http/message.ts): opaque here, so this serves any resource; the list
 * names its store version (lib/categoryList/cache.ts, `listVersion`).
 *
 * The tag names the version and the content coding the answer is sent in, and nothing taken from
 * the body: a function that has read only the version can answer 304. It is weak (`W/`): the same
 * version promises equivalent content, not identical bytes. Each content coding gets its own tag,
 * as RFC 9110 asks of differently encoded representations; the coding comes from the same
 * negotiation (`chooseEncoding`) that picks the body's coding in ./response.ts.
 */
import type { HttpEvent, HttpResponse } from "./message.ts";
import { header } from "./message.ts";
import type { ContentCoding } from "./response.ts";
import { chooseEncoding } from "./response.ts";

export function entityTag(version: string, coding: ContentCoding | undefined): string {
  return `W/"${version}${coding ? `-${coding}` : ""}"`;
}

/** ETag, and a cacheable answer that must be revalidated each time, varying by coding. */
export function validatorHeaders(
  acceptEncoding: string | undefined,
  version: string,
): Record<string, string> {
  return {
    etag: entityTag(version, chooseEncoding(acceptEncoding)),
    "cache-control": "private, no-cache",
    vary: "accept-encoding",
  };
}

/** Whether the request's If-None-Match names the current tag of its negotiated coding. */
export function isNotModified(event: Pick<HttpEvent, "headers">, version: string): boolean {
  const tag = entityTag(version, chooseEncoding(header(event, "accept-encoding")));
  return ifNoneMatchHits(header(event, "if-none-match"), tag);
}

/**
 * Whether `If-None-Match` names `tag`: `*`, or any listed entity tag equal to it under weak
 * comparison (opaque tags equal, `W/` ignored). A malformed header matches nothing, so the
 * client simply gets the full answer.
 */
export function ifNoneMatchHits(ifNoneMatch: string | undefined, tag: string): boolean {
  if (ifNoneMatch === undefined) return false;
  if (ifNoneMatch.trim() === "*") return true;
  const wanted = tag.replace(/^W\//, "").slice(1, -1);
  // etagc may contain commas, so tags are scanned as quoted strings rather than split on ",";
  // a `W/` prefix lies outside the quotes, so weak and strong tags compare alike.
  for (const match of ifNoneMatch.matchAll(/"([\x21\x23-\x7e\x80-\xff]*)"/g)) {
    if (match[1] === wanted) return true;
  }
  return false;
}

/** 304: the validator headers and no body, so no Content-Type either (RFC 9110 §15.4.5). */
export function notModifiedResponse(validators: Record<string, string>): HttpResponse {
  return {
    statusCode: 304,
    headers: { "x-content-type-options": "nosniff", ...validators },
    body: "",
    isBase64Encoded: false,
  };
}
