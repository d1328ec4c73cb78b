/**
 * openapi.yaml as a document: a valid OpenAPI 3.1 description of interface version 1.0.0, every
 * operation behind the bearer scheme, and the Idempotency-Key header as the contract gives it.
 * (Servers and deprecation: callers.test.ts.)
 */
import SwaggerParser from "@apidevtools/swagger-parser";
import { describe, expect, it } from "vitest";
import { allScopes } from "../../lib/scopes.ts";
import { loadOpenApi, objectAt, openApiPath } from "../support/openapiDocument.ts";
import { openApiOperations } from "./operations.ts";

const document = loadOpenApi();

describe("openapi.yaml as a document", () => {
  it("is a valid OpenAPI 3.1 description (swagger-parser)", async () => {
    const api = await SwaggerParser.validate(openApiPath);
    expect((api as { openapi?: string }).openapi).toBe("3.1.0");
  });

  it("carries the interface version 1.0.0", () => {
    expect(objectAt(document, "info").version).toBe("1.0.0");
  });

  it("secures every operation with the bearer scheme, naming the scope each served one needs", () => {
    expect(document.security).toEqual([{ bearerAuth: [] }]);
    expect(objectAt(document, "components", "securitySchemes", "bearerAuth")).toMatchObject({
      type: "http",
      scheme: "bearer",
    });
    // x-required-scope declares an operation's scope; its security repeats it for callers'
    // tools. Which operation needs which scope is held by what the functions admit
    // (test/functions/keyScopes.test.ts); the 501/410 routes need only a valid key.
    const scopes = openApiOperations().map(([route, operation]) => {
      const scope = operation["x-required-scope"];
      expect(operation.security, route).toEqual(
        scope === undefined ? undefined : [{ bearerAuth: [scope] }],
      );
      return scope;
    });
    expect(new Set(scopes.filter((scope) => scope !== undefined))).toEqual(new Set(allScopes));
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
});
