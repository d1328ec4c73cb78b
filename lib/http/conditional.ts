/**
 * Conditional GETs of the list (contract "Responses"): its validator headers, the
 * If-None-Match check, and the 304. The tag's coding comes from the same negotiation
 * (`chooseEncoding`) that picks the body's coding in ./response.ts.
 */
import type { TaggedVersion } from "../categoryList/etag.ts";
import { ifNoneMatchHits, listETag } from "../categoryList/etag.ts";
import type { HttpEvent, HttpResponse } from "./message.ts";
import { header } from "./message.ts";
import { chooseEncoding } from "./response.ts";

/** ETag, and a cacheable answer that must be revalidated each time, varying by coding. */
export function validatorHeaders(
  acceptEncoding: string | undefined,
  version: TaggedVersion,
): Record<string, string> {
  return {
    etag: listETag(version, chooseEncoding(acceptEncoding)),
    "cache-control": "private, no-cache",
    vary: "accept-encoding",
  };
}

/** Whether the request's If-None-Match names the current tag of its negotiated coding. */
export function isNotModified(event: Pick<HttpEvent, "headers">, version: TaggedVersion): boolean {
  const tag = listETag(version, chooseEncoding(header(event, "accept-encoding")));
  return ifNoneMatchHits(header(event, "if-none-match"), tag);
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
