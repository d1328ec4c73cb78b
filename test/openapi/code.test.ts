/**
 * openapi.yaml agrees with the code: its Error codes are lib/errors.ts's ErrorCode, every
 * (status, code) pair lib/errors.ts can answer is documented somewhere, and its routes are
 * exactly those infra/template.yaml serves; each function checks the scope it declares.
 */
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { describe, expect, it } from "vitest";
import type { FunctionSpec } from "../../local/template.ts";
import { functionsOf, projectRoot, routesOf } from "../../local/template.ts";
import { declaredFor } from "../../scripts/build.ts";
import type { ObservedResponse } from "../support/openapi.ts";
import { assertMatchesOpenApi } from "../support/openapi.ts";
import { loadOpenApi, objectAt } from "../support/openapiDocument.ts";
import { errorResponse, everyHeader, everyHeaderOfScope } from "../support/openapiSamples.ts";
import { openApiOperations } from "./operations.ts";

const document = loadOpenApi();
const errorsSource = readFileSync(resolve(projectRoot, "lib/errors.ts"), "utf8");

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

const documentedRoutes = (): string[] => openApiOperations().map(([route]) => route);

describe("openapi.yaml documents what the code answers", () => {
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
      const candidates: ObservedResponse[] = [everyHeader, everyHeaderOfScope].flatMap(
        (headers) => [
          errorResponse(status, code, { path: "/v1/nope", headers }),
          errorResponse(status, code, {
            method: "PUT",
            headers: { ...headers, allow: "GET, POST" },
          }),
          ...routes.map((route) => {
            const [method = "", path = ""] = route.split(" ");
            const concrete = `/v1${path.replace(/\{[^}]+\}/g, "7")}`;
            return errorResponse(status, code, { method, path: concrete, headers });
          }),
        ],
      );
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
});

describe("a function checks the scope openapi.yaml declares for its routes, written nowhere else", () => {
  const spec = (name: string, routeKeys: readonly string[]): FunctionSpec => {
    const found = functionsOf().find((candidate) => candidate.name === name);
    if (!found) throw new Error(`no function ${name}`);
    return { ...found, routeKeys };
  };

  it("each function is told its routes' x-required-scope, the fallback none", () => {
    const operations = new Map(openApiOperations());
    for (const fn of functionsOf()) {
      const scopes = fn.routeKeys.flatMap((routeKey) => {
        const scope = operations.get(routeKey.replace(" /v1/", " /"))?.["x-required-scope"];
        return scope === undefined ? [] : [scope];
      });
      expect(declaredFor(fn).scope, fn.name).toBe(scopes[0]);
    }
    expect(declaredFor(spec("routeFallback", ["$default"])).scope).toBeUndefined();
  });

  it("the build refuses a function whose routes need different scopes", () => {
    const both = spec("listCategories", ["GET /v1/categories", "POST /v1/categories"]);
    expect(() => declaredFor(both)).toThrow(
      "openapi.yaml: the routes of listCategories need categories:read and categories:write",
    );
  });
});
