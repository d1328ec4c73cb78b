/**
 * Responses as the service gives them, to show the openapi.yaml response check
 * (test/support/openapi.ts) accepting and rejecting: a Category list, an Error answer, and the
 * headers the contract requires. Each test overrides what it is about.
 */
import type { ObservedResponse } from "./openapi.ts";

/** The headers every answer of the service carries (contract.md), to a request with a valid key. */
export const contractHeaders = {
  "content-type": "application/json; charset=utf-8",
  "cache-control": "no-store",
  "x-content-type-options": "nosniff",
  "request-id": "Ab3xQhFqDoEEJcw=",
  // The key's rate limit (lib/rateLimit/): on every answer to a request with a valid key.
  "ratelimit-policy": '"default";q=50;w=1',
  ratelimit: '"default";r=99;t=1',
};
/** The list's 200 is cacheable but always revalidated, and carries its ETag. */
export const listHeaders = {
  ...contractHeaders,
  "cache-control": "private, no-cache",
  etag: 'W/"k1.2-br"',
};

/** A 200 list of two Categories, as the service answers it. */
export function ok(overrides: Partial<ObservedResponse> = {}): ObservedResponse {
  return {
    method: "GET",
    path: "/v1/categories",
    status: 200,
    headers: listHeaders,
    body: JSON.stringify([
      { id: 1, name: "dog", description: "Domestic dogs." },
      { id: 2, name: "cat" },
    ]),
    ...overrides,
  };
}

/** An Error answer with the contract's headers. */
export function errorResponse(
  status: number,
  code: string,
  overrides: Partial<ObservedResponse> = {},
): ObservedResponse {
  return {
    method: "GET",
    path: "/v1/categories",
    status,
    headers: contractHeaders,
    body: JSON.stringify({ code, message: "something went wrong", status }),
    ...overrides,
  };
}

/** Headers that satisfy every header the document can require. */
export const everyHeader = {
  ...contractHeaders,
  "www-authenticate": 'Bearer realm="petstore"',
  "retry-after": "1",
  deprecation: "@1767225600",
  sunset: "Thu, 01 Jan 2026 00:00:00 GMT",
};

/** everyHeader with the 403's challenge in place of the 401's. */
export const everyHeaderOfScope = {
  ...everyHeader,
  "www-authenticate":
    'Bearer realm="petstore", error="insufficient_scope", scope="categories:write"',
};
