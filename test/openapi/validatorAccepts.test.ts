/**
 * The response check the HTTP tests use (test/support/openapi.ts) accepts what openapi.yaml
 * describes: lists, replays, the route fallback's 404 and 405, HEAD answers, the deprecated
 * route's headers.
 */
import { describe, expect, it } from "vitest";
import { assertMatchesOpenApi } from "../support/openapi.ts";
import { contractHeaders, errorResponse, listHeaders, ok } from "../support/openapiSamples.ts";

describe("assertMatchesOpenApi accepts what the document describes", () => {
  it("accepts a Category list with the contract's headers", () => {
    expect(() => {
      assertMatchesOpenApi(ok());
    }).not.toThrow();
  });

  it("accepts an empty list, a Headers object and a query string", () => {
    expect(() => {
      assertMatchesOpenApi(
        ok({ path: "/v1/categories?x=1", headers: new Headers(listHeaders), body: "[]" }),
      );
    }).not.toThrow();
  });

  it("accepts a replayed 201 Category", () => {
    expect(() => {
      assertMatchesOpenApi(
        ok({
          method: "POST",
          status: 201,
          headers: { ...contractHeaders, "idempotent-replayed": "true" },
          body: JSON.stringify({ id: 3, name: "rabbit" }),
        }),
      );
    }).not.toThrow();
  });

  it("accepts a 404 for an unknown path and a 405 with the path's Allow, without auth", () => {
    expect(() => {
      assertMatchesOpenApi(errorResponse(404, "not_found", { path: "/v1/nope" }));
      assertMatchesOpenApi(
        errorResponse(405, "method_not_allowed", {
          method: "DELETE",
          headers: { ...contractHeaders, allow: "GET, POST" },
        }),
      );
    }).not.toThrow();
  });

  it("accepts a HEAD answer by its status and headers alone (HEAD has no body)", () => {
    expect(() => {
      assertMatchesOpenApi({
        method: "HEAD",
        path: "/v1/categories",
        status: 405,
        headers: { ...contractHeaders, allow: "GET, POST" },
        body: "",
      });
    }).not.toThrow();
  });

  it("accepts the deprecated pets route's 501 with Deprecation and Sunset", () => {
    expect(() => {
      assertMatchesOpenApi(
        errorResponse(501, "not_implemented", {
          path: "/v1/pets/7",
          headers: {
            ...contractHeaders,
            deprecation: "@1767225600",
            sunset: "Fri, 01 Jan 2027 00:00:00 GMT",
          },
        }),
      );
    }).not.toThrow();
  });
});
