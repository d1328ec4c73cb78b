import { describe, expect, it } from "vitest";
import {
  decideFallback,
  gatewayPath,
  pathMatches,
  requiredScope,
  routeTableOf,
} from "../../lib/routes.ts";

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

describe("a path parameter matches exactly one non-empty segment, and only when it is wholly `{name}`", () => {
  it.each([
    ["/v1/pets/{petId}", "/v1/pets/7", true],
    ["/v1/pets/{petId}", "/v1/pets/", false],
    ["/v1/pets/{petId}", "/v1/pets/7/toys", false],
    ["/v1/categories", "/v1/categories/", false],
    ["/v1/categories", "/v1/Categories", false],
    ["/v1/{petId}x", "/v1/7x", false],
    ["/v1/x{petId}", "/v1/x7", false],
    ["/v1/{}", "/v1/7", false],
    ["/v1/{}", "/v1/{}", true],
    ["/v1/{petId}", "/v1/{petId}", true],
  ])("%s ~ %s → %s", (pattern, path, expected) => {
    expect(pathMatches(pattern, path)).toBe(expected);
  });
});

describe("a path is routed and handed over decoded once; escapes that do not decode stay as sent", () => {
  it.each([
    ["/v1/%63ategorie%73", "/v1/categories"],
    ["/v1/store%2Forders", "/v1/store/orders"],
    ["/v1/%2563ategories", "/v1/%63ategories"],
    ["/v1/pets/%ff", "/v1/pets/%ff"],
    ["/v1/categories%", "/v1/categories%"],
  ])("%s → %s", (sent, handed) => {
    expect(gatewayPath(sent)).toBe(handed);
  });
});

describe("known path with another method is 405 with Allow; anything else is 404", () => {
  // The path as the event carries it: API Gateway decoded it once (docs/contract.md).
  it.each([
    ["/v1/categories", "PUT", "/v1/categories", ["GET", "POST"]],
    ["/v1/categories", "DELETE", "/v1/categories", ["GET", "POST"]],
    ["/v1/pets/12", "DELETE", "/v1/pets/{petId}", ["GET"]],
    ["/v1/pets/%41", "DELETE", "/v1/pets/{petId}", ["GET"]],
  ])("%s %s → 405, the methods %s serves", (path, method, pattern, allow) => {
    expect(decideFallback(routes, path, method)).toEqual({
      kind: "method_not_allowed",
      path: pattern,
      allow,
    });
  });

  // A path that matches no route, or still holds an escape that does not decode, is 404
  // whatever the method (its GET reaches the fallback too: API Gateway could not route it). It
  // is never decoded again: `/v1/%63ategories` arrives only for a request sent as `%2563`.
  it.each([
    ...["/", "/v1", "/v2/categories", "/categories", "/v1/categories/1", "/v1/pets"].map((path) => [
      path,
      "GET",
    ]),
    ["/v1/categories", "GET"],
    ["/v1/categories", "POST"],
    ["/v1/pets/%ff", "GET"],
    ["/v1/pets/%ff", "DELETE"],
    ["/v1/pets/%", "DELETE"],
    ["/v1/%63ategorie%73", "DELETE"],
    ["/v1/store%2Forders", "DELETE"],
    ["v1/categories", "DELETE"],
  ])("%s %s → 404", (path, method) => {
    expect(decideFallback(routes, path, method)).toEqual({ kind: "not_found" });
  });
});

describe("the route table reads only 'METHOD /path' route keys", () => {
  it("skips a key without a path, such as API Gateway's $default route", () => {
    expect(routeTableOf(["$default", "GET /v1/categories"])).toEqual({
      "/v1/categories": ["GET"],
    });
    expect(routeTableOf(["$default"])).toEqual({});
  });
});

describe("an operation's function checks the scope it was built with", () => {
  it("a function built without a scope fails as it loads, naming what is missing", () => {
    expect(() => requiredScope({ routes: {} }, { operation: "listCategories" })).toThrow(
      "openapi.yaml declares no x-required-scope for listCategories's routes",
    );
    expect(requiredScope({ routes: {}, scope: "categories:read" }, { operation: "x" })).toBe(
      "categories:read",
    );
  });
});
