/**
 * openapi.yaml against the OpenAPI 3.1 schema, the code (error codes, routes) and the interface
 * (version, base path); and the response validator the HTTP tests use, shown able to fail.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import SwaggerParser from "@apidevtools/swagger-parser";
import { describe, expect, it } from "vitest";
import { projectRoot, routesOf } from "../local/template.ts";
import type { ObservedResponse } from "./support/openapi.ts";
import {
  assertMatchesOpenApi,
  loadOpenApi,
  openApiPath,
  operationMethods,
} from "./support/openapi.ts";

type JsonObject = Readonly<Record<string, unknown>>;

const document = loadOpenApi();
const errorsSource = readFileSync(resolve(projectRoot, "lib/errors.ts"), "utf8");

function objectAt(value: unknown, ...keys: string[]): JsonObject {
  let node = value;
  for (const key of keys) node = (node as JsonObject | undefined)?.[key];
  if (typeof node !== "object" || node === null) throw new Error(`nothing at ${keys.join(".")}`);
  return node as JsonObject;
}

/** The string literals of `export type ErrorCode = | "a" | "b" ...;` in lib/errors.ts. */
function errorCodesInSource(): string[] {
  const union = /export type ErrorCode =([^;]+);/.exec(errorsSource)?.[1];
  if (union === undefined) throw new Error("lib/errors.ts declares no ErrorCode union");
  return [...union.matchAll(/"([a-z_]+)"/g)].map((match) => match[1] ?? "");
}

/** Every `new ApiError(status, "code", ...)` in lib/errors.ts, as [status, code]. */
function errorPairsInSource(): [number, string][] {
  return [...errorsSource.matchAll(/new ApiError\(\s*(\d{3}),\s*"([a-z_]+)"/g)].map((match) => [
    Number(match[1]),
    match[2] ?? "",
  ]);
}

/** "GET /categories"-style keys of every operation the document describes. */
function documentedRoutes(): string[] {
  const paths = objectAt(document, "paths");
  return Object.entries(paths).flatMap(([path, item]) =>
    operationMethods
      .filter((method) => (item as JsonObject)[method] !== undefined)
      .map((method) => `${method.toUpperCase()} ${path}`),
  );
}

const contractHeaders = {
  "content-type": "application/json; charset=utf-8",
  "cache-control": "no-store",
  "x-content-type-options": "nosniff",
};

function ok(overrides: Partial<ObservedResponse> = {}): ObservedResponse {
  return {
    method: "GET",
    path: "/v1/categories",
    status: 200,
    headers: contractHeaders,
    body: JSON.stringify([
      { id: 1, name: "dog", description: "Domestic dogs." },
      { id: 2, name: "cat" },
    ]),
    ...overrides,
  };
}

function errorResponse(
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
const everyHeader = {
  ...contractHeaders,
  "www-authenticate": 'Bearer realm="petstore"',
  "retry-after": "1",
  deprecation: "@1767225600",
};

describe("openapi.yaml as a document", () => {
  it("is a valid OpenAPI 3.1 description (swagger-parser)", async () => {
    const api = await SwaggerParser.validate(openApiPath);
    expect((api as { openapi?: string }).openapi).toBe("3.1.0");
  });

  it("carries the interface version 1.0.0", () => {
    expect(objectAt(document, "info").version).toBe("1.0.0");
  });

  it("has base addresses that all end in /v1, the local server's included", () => {
    const urls = (document.servers as { url: string }[]).map((server) => server.url);
    expect(urls).toContain("http://127.0.0.1:3000/v1");
    for (const url of urls) expect(url).toMatch(/\/v1$/);
  });

  it("secures every operation with the bearer scheme", () => {
    expect(document.security).toEqual([{ bearerAuth: [] }]);
    expect(objectAt(document, "components", "securitySchemes", "bearerAuth")).toMatchObject({
      type: "http",
      scheme: "bearer",
    });
    for (const item of Object.values(objectAt(document, "paths"))) {
      for (const method of operationMethods) {
        const operation = (item as JsonObject)[method] as JsonObject | undefined;
        expect(operation?.security).toBeUndefined();
      }
    }
  });

  it("lists exactly the Error codes of lib/errors.ts ErrorCode", () => {
    const documented = objectAt(document, "components", "schemas", "Error", "properties", "code")
      .enum as string[];
    const inSource = errorCodesInSource();
    expect(inSource.length).toBeGreaterThan(0);
    expect([...documented].sort()).toEqual([...inSource].sort());
  });

  it("documents every (status, code) pair lib/errors.ts can answer, on some operation or the route fallback", () => {
    const pairs = errorPairsInSource();
    expect(new Set(pairs.map(([, code]) => code))).toEqual(new Set(errorCodesInSource()));
    const routes = documentedRoutes();
    for (const [status, code] of pairs) {
      const candidates: ObservedResponse[] = [
        errorResponse(status, code, { path: "/v1/nope", headers: everyHeader }),
        errorResponse(status, code, {
          method: "PUT",
          headers: { ...everyHeader, allow: "GET, POST" },
        }),
        ...routes.map((route) => {
          const [method = "", path = ""] = route.split(" ");
          const concrete = `/v1${path.replace(/\{[^}]+\}/g, "7")}`;
          return errorResponse(status, code, { method, path: concrete, headers: everyHeader });
        }),
      ];
      const accepted = candidates.filter((candidate) => {
        try {
          assertMatchesOpenApi(candidate);
          return true;
        } catch {
          return false;
        }
      });
      expect(accepted, `${status} ${code} is documented nowhere`).not.toHaveLength(0);
    }
  });

  it("describes exactly the routes infra/template.yaml serves (with /v1 stripped, $default aside)", () => {
    const served = [...routesOf().keys()]
      .filter((key) => key !== "$default")
      .map((key) => key.replace(" /v1/", " /"));
    expect([...documentedRoutes()].sort()).toEqual([...served].sort());
  });

  it("takes an optional Idempotency-Key of 1 to 255 printable ASCII characters on POST /categories", () => {
    const parameter = objectAt(document, "components", "parameters", "IdempotencyKey");
    expect(parameter).toMatchObject({ name: "Idempotency-Key", in: "header", required: false });
    const pattern = new RegExp(String(objectAt(parameter, "schema").pattern), "u");
    expect(pattern.test("a")).toBe(true);
    expect(pattern.test("~".repeat(255))).toBe(true);
    expect(pattern.test("")).toBe(false);
    expect(pattern.test("x".repeat(256))).toBe(false);
    expect(pattern.test("caf\u00e9")).toBe(false);
    expect(pattern.test("a\tb")).toBe(false);
    const post = objectAt(document, "paths", "/categories", "post");
    expect(post.parameters).toEqual([{ $ref: "#/components/parameters/IdempotencyKey" }]);
  });

  it("marks GET /pets/{petId} deprecated, and nothing else", () => {
    expect(objectAt(document, "paths", "/pets/{petId}", "get").deprecated).toBe(true);
    expect(objectAt(document, "paths", "/categories", "get").deprecated).toBeUndefined();
    expect(objectAt(document, "paths", "/categories", "post").deprecated).toBeUndefined();
    expect(objectAt(document, "paths", "/store/orders", "get").deprecated).toBeUndefined();
  });
});

describe("assertMatchesOpenApi accepts what the document describes", () => {
  it("accepts a Category list with the contract's headers", () => {
    expect(() => {
      assertMatchesOpenApi(ok());
    }).not.toThrow();
  });

  it("accepts an empty list, a Headers object and a query string", () => {
    expect(() => {
      assertMatchesOpenApi(
        ok({ path: "/v1/categories?x=1", headers: new Headers(contractHeaders), body: "[]" }),
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
      assertMatchesOpenApi(ok({ headers: { ...contractHeaders, "cache-control": "max-age=60" } }));
    }).toThrow(/Cache-Control/);
  });

  it("rejects a body that is not application/json; charset=utf-8", () => {
    expect(() => {
      assertMatchesOpenApi(ok({ headers: { ...contractHeaders, "content-type": "text/plain" } }));
    }).toThrow(/Content-Type/);
    expect(() => {
      assertMatchesOpenApi(
        ok({ headers: { ...contractHeaders, "content-type": "application/json" } }),
      );
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
