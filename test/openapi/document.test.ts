/**
 * openapi.yaml as a document: a valid OpenAPI 3.1 description of interface version 1.0.0, its
 * base addresses ending in /v1, every operation behind the bearer scheme, the Idempotency-Key
 * header as the contract gives it, and only the pets route deprecated.
 */
import SwaggerParser from "@apidevtools/swagger-parser";
import { describe, expect, it } from "vitest";
import type { JsonObject } from "../support/openapiDocument.ts";
import {
  loadOpenApi,
  objectAt,
  openApiPath,
  operationMethods,
} from "../support/openapiDocument.ts";

const document = loadOpenApi();

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

  it("secures every operation with the bearer scheme, naming the scope each served one needs", () => {
    expect(document.security).toEqual([{ bearerAuth: [] }]);
    expect(objectAt(document, "components", "securitySchemes", "bearerAuth")).toMatchObject({
      type: "http",
      scheme: "bearer",
    });
    const scopes: Record<string, string> = {
      listCategories: "categories:read",
      createCategory: "categories:write",
    };
    for (const item of Object.values(objectAt(document, "paths"))) {
      for (const method of operationMethods) {
        const operation = (item as JsonObject)[method] as JsonObject | undefined;
        if (!operation) continue;
        const scope = scopes[String(operation.operationId)];
        // The 501/410 routes need only a valid key: the document-wide requirement.
        expect(operation.security).toEqual(scope ? [{ bearerAuth: [scope] }] : undefined);
        expect(operation["x-required-scope"]).toBe(scope);
      }
    }
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
