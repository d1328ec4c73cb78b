/**
 * The response check the HTTP tests use (test/support/openapi.ts) is able to fail: it rejects
 * each way a response can leave what openapi.yaml describes (body schema, Error shape, status,
 * required headers, media type, the route fallback's answers).
 */
import { describe, expect, it } from "vitest";
import { assertMatchesOpenApi } from "../support/openapi.ts";
import { contractHeaders, errorResponse, listHeaders, ok } from "../support/openapiSamples.ts";

describe("assertMatchesOpenApi rejects what the document does not describe", () => {
  it("rejects a Category with a field the schema does not list", () => {
    const body = JSON.stringify([{ id: 1, name: "dog", createdAt: "2026-01-01" }]);
    expect(() => {
      assertMatchesOpenApi(ok({ body }));
    }).toThrow(/must NOT have additional properties/);
  });

  it("rejects a Category breaking a field rule (id 0, description null)", () => {
    expect(() => {
      assertMatchesOpenApi(ok({ body: JSON.stringify([{ id: 0, name: "dog" }]) }));
    }).toThrow(/must be >= 1/);
    expect(() => {
      assertMatchesOpenApi(
        ok({ body: JSON.stringify([{ id: 1, name: "dog", description: null }]) }),
      );
    }).toThrow(/must be string/);
  });

  it("rejects a Category name that is untrimmed or holds a control character", () => {
    for (const name of [" dog", "dog\t", "do\u0000g", "do\u0085g", "x".repeat(101), ""]) {
      expect(() => {
        assertMatchesOpenApi(ok({ body: JSON.stringify([{ id: 1, name }]) }));
      }, JSON.stringify(name)).toThrow(/name/);
    }
    expect(() => {
      assertMatchesOpenApi(
        ok({ body: JSON.stringify([{ id: 1, name: "chien d'arr\u00eat 🐕" }]) }),
      );
    }).not.toThrow();
  });

  it("rejects an Error whose status differs from the HTTP status", () => {
    expect(() => {
      assertMatchesOpenApi(
        errorResponse(401, "unauthorized", {
          headers: { ...contractHeaders, "www-authenticate": 'Bearer realm="petstore"' },
          body: JSON.stringify({ code: "unauthorized", message: "no key", status: 400 }),
        }),
      );
    }).toThrow(/status/);
  });

  it("rejects an Error with a field beyond code, message and status", () => {
    expect(() => {
      assertMatchesOpenApi(
        errorResponse(500, "internal_error", {
          body: JSON.stringify({
            code: "internal_error",
            message: "boom",
            status: 500,
            stack: "Error: boom",
          }),
        }),
      );
    }).toThrow(/additional properties/);
  });

  it("rejects an Error whose code does not belong to the status", () => {
    expect(() => {
      assertMatchesOpenApi(errorResponse(500, "not_found"));
    }).toThrow(/must be equal to constant/);
  });

  it("rejects a status the operation does not document", () => {
    expect(() => {
      assertMatchesOpenApi(errorResponse(418, "invalid_body"));
    }).toThrow("status 418 not documented for GET /v1/categories");
    expect(() => {
      assertMatchesOpenApi(errorResponse(400, "invalid_body"));
    }).toThrow("status 400 not documented for GET /v1/categories");
  });

  it("rejects a response missing a required header (WWW-Authenticate, Retry-After, Deprecation, Stability)", () => {
    expect(() => {
      assertMatchesOpenApi(errorResponse(401, "unauthorized"));
    }).toThrow(/must carry a WWW-Authenticate header/);
    expect(() => {
      assertMatchesOpenApi(errorResponse(409, "idempotency_in_progress", { method: "POST" }));
    }).toThrow(/must carry a Retry-After header/);
    expect(() => {
      assertMatchesOpenApi(errorResponse(501, "not_implemented", { path: "/v1/pets/7" }));
    }).toThrow(/must carry a Deprecation header/);
    expect(() => {
      assertMatchesOpenApi(errorResponse(501, "not_implemented", { path: "/v1/store/orders" }));
    }).toThrow(/must carry a Stability header/);
    expect(() => {
      assertMatchesOpenApi(ok({ headers: { ...listHeaders, "cache-control": "max-age=60" } }));
    }).toThrow(/Cache-Control/);
  });

  it("rejects a body that is not application/json; charset=utf-8", () => {
    expect(() => {
      assertMatchesOpenApi(ok({ headers: { ...listHeaders, "content-type": "text/plain" } }));
    }).toThrow(/Content-Type/);
    expect(() => {
      assertMatchesOpenApi(ok({ headers: { ...listHeaders, "content-type": "application/json" } }));
    }).toThrow(/charset=utf-8/);
    expect(() => {
      assertMatchesOpenApi(ok({ body: "not json" }));
    }).toThrow(/not JSON/);
  });

  it("rejects anything but 404 for an unknown path, and anything but 405 with the right Allow for an unlisted method", () => {
    expect(() => {
      assertMatchesOpenApi(ok({ path: "/v1/nope" }));
    }).toThrow(/expected status 404/);
    expect(() => {
      assertMatchesOpenApi(ok({ path: "/categories" }));
    }).toThrow(/expected status 404/);
    expect(() => {
      assertMatchesOpenApi(errorResponse(404, "not_found", { method: "PUT" }));
    }).toThrow(/expected status 405/);
    expect(() => {
      assertMatchesOpenApi(
        errorResponse(405, "method_not_allowed", {
          method: "PUT",
          headers: { ...contractHeaders, allow: "GET" },
        }),
      );
    }).toThrow(/Allow is "GET"/);
  });
});
