import { describe, expect, it } from "vitest";
import { decideFallback, pathMatches, routeTableOf } from "../../lib/routes.ts";

const routes = routeTableOf([
  "GET /v1/categories",
  "POST /v1/categories",
  "GET /v1/pets/{petId}",
  "GET /v1/store/orders",
]);

describe("the route table groups methods by path", () => {
  it("collects the template's route keys", () => {
    expect(routes).toEqual({
      "/v1/categories": ["GET", "POST"],
      "/v1/pets/{petId}": ["GET"],
      "/v1/store/orders": ["GET"],
    });
  });
});

describe("a path parameter matches exactly one non-empty segment", () => {
  it.each([
    ["/v1/pets/{petId}", "/v1/pets/7", true],
    ["/v1/pets/{petId}", "/v1/pets/", false],
    ["/v1/pets/{petId}", "/v1/pets/7/toys", false],
    ["/v1/categories", "/v1/categories/", false],
    ["/v1/categories", "/v1/Categories", false],
  ])("%s ~ %s → %s", (pattern, path, expected) => {
    expect(pathMatches(pattern, path)).toBe(expected);
  });
});

describe("known path with another method is 405 with Allow; anything else is 404", () => {
  it("405 lists the methods the path serves", () => {
    expect(decideFallback(routes, "/v1/categories")).toEqual({
      kind: "method_not_allowed",
      path: "/v1/categories",
      allow: ["GET", "POST"],
    });
    expect(decideFallback(routes, "/v1/pets/12")).toMatchObject({
      kind: "method_not_allowed",
      allow: ["GET"],
    });
  });

  it.each(["/", "/v1", "/v2/categories", "/categories", "/v1/categories/1", "/v1/pets"])(
    "404 for %s",
    (path) => {
      expect(decideFallback(routes, path)).toEqual({ kind: "not_found" });
    },
  );
});
